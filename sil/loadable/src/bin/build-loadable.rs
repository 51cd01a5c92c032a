//! `build-loadable`: builds, dumps and runs SIL DLA loadables.
//!
//! * `build-loadable DESCRIPTION.toml -o OUT.sildla` builds a loadable from a TOML network
//!   description (byte-for-byte reproducible).
//! * `build-loadable --describe FILE.sildla` prints the header, tensors, slots, ops and hash.
//! * `build-loadable --run FILE.sildla --input IN.bin [--input ...] -o OUT.bin` runs the
//!   network on the CPU; `OUT.bin` is the outputs concatenated in descriptor order, each
//!   `size` bytes as its descriptor says.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use sil_loadable::{Loadable, builder, describe};

#[derive(Parser, Debug)]
#[command(
    name = "build-loadable",
    version,
    about = "Build, dump and run SIL DLA loadables"
)]
struct Cli {
    /// The TOML network description to build.
    #[arg(value_name = "DESCRIPTION.toml", required_unless_present_any = ["describe", "run"])]
    description: Option<PathBuf>,
    /// Where to write the loadable (build) or the concatenated outputs (`--run`).
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Print the header, tensor descriptors, slots, ops and hash of a loadable.
    #[arg(long, value_name = "FILE.sildla", conflicts_with_all = ["description", "run", "output"])]
    describe: Option<PathBuf>,
    /// Run a loadable on input files (one `--input` per input tensor, in order).
    #[arg(
        long,
        value_name = "FILE.sildla",
        conflicts_with = "description",
        requires = "output"
    )]
    run: Option<PathBuf>,
    /// An input tensor file for `--run` (descriptor size, strided as the descriptor says).
    #[arg(long = "input", value_name = "IN.bin", requires = "run")]
    inputs: Vec<PathBuf>,
}

fn read(path: &PathBuf) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn main_inner(cli: Cli) -> Result<(), String> {
    if let Some(path) = &cli.describe {
        let bytes = read(path)?;
        let l = Loadable::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        print!("{}", describe::describe(&l));
        return Ok(());
    }
    if let Some(path) = &cli.run {
        let bytes = read(path)?;
        let l = Loadable::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        let inputs = cli.inputs.iter().map(read).collect::<Result<Vec<_>, _>>()?;
        let input_refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
        let mut outputs: Vec<Vec<u8>> = l
            .outputs()
            .map(|d| vec![0u8; usize::try_from(d.size).unwrap_or(0)])
            .collect();
        let mut output_refs: Vec<&mut [u8]> = outputs.iter_mut().map(Vec::as_mut_slice).collect();
        let mut scratch = vec![0u8; l.scratch_size()];
        l.run(&input_refs, &mut output_refs, &mut scratch)
            .map_err(|e| e.to_string())?;
        let out = cli.output.as_ref().ok_or("--run needs -o")?;
        std::fs::write(out, outputs.concat()).map_err(|e| format!("{}: {e}", out.display()))?;
        return Ok(());
    }
    let desc = cli.description.as_ref().ok_or("no description given")?;
    let out = cli.output.as_ref().ok_or("-o OUT.sildla is required")?;
    let text = std::fs::read_to_string(desc).map_err(|e| format!("{}: {e}", desc.display()))?;
    let bytes = builder::build(&text).map_err(|e| format!("{}: {e}", desc.display()))?;
    std::fs::write(out, &bytes).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(())
}

fn main() -> ExitCode {
    match main_inner(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("build-loadable: {e}");
            ExitCode::FAILURE
        }
    }
}

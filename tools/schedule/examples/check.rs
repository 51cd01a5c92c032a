//! `cargo run -p orin-exec-schedule --example check -- FILE [--emit]`: validates a schedule
//! and prints the report (or the diagnostics); `--emit` prints the generated Rust instead.
use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(file) = args.first() else {
        eprintln!("usage: check FILE [--emit]");
        std::process::exit(2);
    };
    let options = orin_exec_schedule::Options {
        cargo_directives: false,
        ..Default::default()
    };
    let result = if args.iter().any(|a| a == "--emit") {
        orin_exec_schedule::render(Path::new(file), &options).map(|g| g.source)
    } else {
        orin_exec_schedule::check_file(Path::new(file)).map(|r| r.to_string())
    };
    match result {
        Ok(text) => print!("{text}"),
        Err(diags) => {
            eprintln!("{diags}");
            std::process::exit(1);
        }
    }
}

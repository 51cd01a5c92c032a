//! Checks the platform features: exactly one of `sil`, `rig`, `orin` for a hosted build,
//! none for the bare `no_std` core.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let on =
        |name: &str| std::env::var_os(format!("CARGO_FEATURE_{}", name.to_uppercase())).is_some();
    let platforms: Vec<&str> = ["sil", "rig", "orin"]
        .into_iter()
        .filter(|p| on(p))
        .collect();
    match platforms.as_slice() {
        [] if on("std") => println!(
            "cargo::error=orin-exec: no platform selected; a hosted build needs exactly one of \
             `--features sil` (default), `--features rig` or `--features orin`"
        ),
        [] | [_] => {}
        several => println!(
            "cargo::error=orin-exec: platform features {} are mutually exclusive; pick one with \
             `--no-default-features --features <sil|rig|orin>`",
            several
                .iter()
                .map(|p| format!("`{p}`"))
                .collect::<Vec<_>>()
                .join(" and ")
        ),
    }
    for p in &platforms {
        println!("cargo::rustc-cfg=platform=\"{p}\"");
    }
    println!("cargo::rustc-check-cfg=cfg(platform, values(\"sil\", \"rig\", \"orin\"))");
}

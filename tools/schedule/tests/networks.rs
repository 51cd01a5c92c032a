//! DLA networks in the loadables manifest: the ONNX model, its descriptors and the real
//! loadable are checked when a schedule uses the network, with the manifest's location.
//!
//! Covers: REQ-LDB-010

mod common;

use common::*;

/// A schedule with one DLA task using network `net` (by `key`), on `profile`.
fn schedule(key: &str, profile: &str) -> String {
    with_header(
        &[
            raw_buffer("i", 512),
            raw_buffer("o", 256),
            dla_task("d", "i", "o", &[]),
        ]
        .concat(),
    )
    .replace("network = \"net\"", &format!("{key} = \"net\""))
    .replace("profile = \"sil\"", &format!("profile = \"{profile}\""))
}

fn manifest_path(fx: &Fixture) -> std::path::PathBuf {
    fx.dir.join("manifests/loadables.toml")
}

fn manifest(fx: &Fixture) -> String {
    std::fs::read_to_string(manifest_path(fx)).unwrap()
}

fn set_manifest(fx: &Fixture, text: &str) {
    std::fs::write(manifest_path(fx), text).unwrap();
}

/// The 1-based line of `needle` in the manifest.
fn manifest_line(fx: &Fixture, needle: &str) -> usize {
    pos(&manifest(fx), needle).0
}

#[test]
fn network_key_and_loadable_alias() {
    let fx = Fixture::new();
    fx.ok(&schedule("network", "sil"));
    fx.ok(&schedule("loadable", "sil"));
    let both = schedule("network", "sil")
        .replace("network = \"net\"", "network = \"net\"\nloadable = \"net\"");
    fx.rejects(&both, &["DLA task `d` has both `network` and `loadable`"]);
    let none = schedule("network", "sil").replace("network = \"net\"\n", "");
    fx.rejects(&none, &["DLA task `d` has no `network`"]);
}

#[test]
fn descriptors_must_match_the_onnx_model() {
    let fx = Fixture::new();
    let good = manifest(&fx);
    for (from, to, fragment) in [
        (
            "name = \"in\"",
            "name = \"input\"",
            "the model's input here is `in`",
        ),
        (
            "shape = [1, 1, 4, 4]",
            "shape = [1, 1, 4, 5]",
            "shape [1, 1, 4, 5], the model's is [1, 1, 4, 4]",
        ),
        (
            "size = 512",
            "size = 64",
            "size 64, the model's int8 kDLA_LINEAR size is 512",
        ),
        (
            "strides = [1, 64, 256, 256]",
            "strides = [1, 4, 16, 16]",
            "strides [1, 4, 16, 16], the model's are",
        ),
    ] {
        set_manifest(&fx, &good.replace(from, to));
        let (d, s) = fx.errors(&schedule("network", "sil"));
        assert_has(
            &s,
            &["network `net`", "does not match its ONNX model", fragment],
        );
        // The error points into the manifest, at the descriptor's entry.
        let e = d.iter().find(|x| x.message.contains(fragment)).unwrap();
        assert!(
            e.file.ends_with("manifests/loadables.toml"),
            "{}",
            e.file.display()
        );
        assert!(e.line > manifest_line(&fx, "[[network]]"), "{s}");
    }
    // A missing output descriptor.
    let cut = good.find("  [[network.output]]").unwrap();
    set_manifest(&fx, &good[..cut]);
    let (_, s) = fx.errors(&schedule("network", "sil"));
    assert_has(
        &s,
        &[
            "lists 0 output descriptors, its ONNX model has 1 outputs",
            "the model's outputs: out",
        ],
    );
}

#[test]
fn an_unsupported_operator_is_named_with_its_node() {
    let fx = Fixture::new();
    let sigmoid = sil_onnx::proto::NodeProto {
        input: vec!["p".into()],
        output: vec!["p2".into()],
        name: "head/sigmoid".into(),
        op_type: "Sigmoid".into(),
        ..Default::default()
    };
    let bad = net_onnx_with(Some(sigmoid), "p2");
    std::fs::write(fx.dir.join("manifests/bin/net.onnx"), &bad).unwrap();
    set_manifest(&fx, &manifest(&fx).replace(&sha(&net_onnx()), &sha(&bad)));
    let (d, s) = fx.errors(&schedule("network", "sil"));
    assert_has(
        &s,
        &[
            "network `net`: the SIL DLA refuses",
            "node `head/sigmoid` (Sigmoid)",
        ],
    );
    let e = d
        .iter()
        .find(|x| x.message.contains("head/sigmoid"))
        .unwrap();
    assert_eq!(e.line, manifest_line(&fx, "onnx = "), "{s}");
    // A changed model with the old hash is a hash error instead.
    std::fs::write(
        fx.dir.join("manifests/bin/net.onnx"),
        net_onnx_with(None, "x"),
    )
    .unwrap();
    fx.rejects(
        &schedule("network", "sil"),
        &["does not match its sha256 in the manifest"],
    );
}

#[test]
fn the_real_loadable_for_orin() {
    let fx = Fixture::new();
    // orin without a real loadable: valid, with a warning that says how to build one. (The
    // fixture's cubins have an sm_87 variant.)
    let r = fx.ok(&schedule("network", "orin"));
    assert!(
        r.warnings
            .iter()
            .any(|w| w.message.contains("no real DLA loadable")
                && w.notes.iter().any(|n| n.contains("build_real_loadable.sh"))),
        "{r}"
    );
    // Registered (file and hash): no warning, and its hash is checked.
    std::fs::write(fx.dir.join("manifests/bin/net.dla"), b"real loadable").unwrap();
    let good = manifest(&fx);
    let with_real = good.replace(
        "onnx_sha256",
        &format!(
            "loadable = \"bin/net.dla\"\nloadable_sha256 = \"{}\"\nloadable_build_command = \"loadables/build_real_loadable.sh net.onnx net.dla\"\nonnx_sha256",
            sha(b"real loadable")
        ),
    );
    set_manifest(&fx, &with_real);
    let r = fx.ok(&schedule("network", "orin"));
    assert!(
        !r.warnings
            .iter()
            .any(|w| w.message.contains("real DLA loadable")),
        "{r}"
    );
    std::fs::write(fx.dir.join("manifests/bin/net.dla"), b"another").unwrap();
    fx.rejects(
        &schedule("network", "orin"),
        &["net.dla` does not match its sha256"],
    );
    // A loadable without its hash.
    set_manifest(
        &fx,
        &good.replace("onnx_sha256", "loadable = \"bin/net.dla\"\nonnx_sha256"),
    );
    fx.rejects(
        &schedule("network", "sil"),
        &["`loadable` and `loadable_sha256` go together"],
    );
}

//! The typed binding makes binding mistakes compile errors: a missing body, an access to a
//! buffer the task did not declare, a write to a buffer it only reads. The expected compiler
//! messages are committed next to each case (`tests/ui/*.stderr`).
//!
//! Covers: REQ-API-002

#[test]
fn binding_mistakes_do_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}

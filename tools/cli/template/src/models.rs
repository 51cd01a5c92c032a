//! PLACEHOLDER until the kernel-model API lands.
pub fn register() -> orin_exec::Result<()> {
    Ok(())
}

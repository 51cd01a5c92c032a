//! The process-wide registry of live device handles and the SIL device count.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use cudla_sys::{cudlaDevHandle, cudlaModule};

use crate::device::{Device, Module, lock};
use crate::limits::{DEFAULT_DEVICE_COUNT, MAX_DEVICES};

static DEVICES: Mutex<Vec<Arc<Device>>> = Mutex::new(Vec::new());
/// 0 until decided (by `cudlaSilSetDeviceCount`, the environment, or the default).
static DEVICE_COUNT: AtomicU64 = AtomicU64::new(0);
/// Set when the first device handle is created; the count is fixed from then on.
static FROZEN: AtomicBool = AtomicBool::new(false);

/// Parses `CUDLA_SIL_DEVICE_COUNT` (1..=16); anything else is ignored.
fn env_count() -> Option<u64> {
    let v = std::env::var("CUDLA_SIL_DEVICE_COUNT").ok()?;
    let n: u64 = v.trim().parse().ok()?;
    (1..=MAX_DEVICES).contains(&n).then_some(n)
}

/// The number of SIL DLA instances.
pub(crate) fn device_count() -> u64 {
    let c = DEVICE_COUNT.load(Ordering::Acquire);
    if c != 0 {
        return c;
    }
    let n = env_count().unwrap_or(DEFAULT_DEVICE_COUNT);
    match DEVICE_COUNT.compare_exchange(0, n, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => n,
        Err(other) => other,
    }
}

/// `cudlaSilSetDeviceCount`: `false` once a device handle exists.
pub(crate) fn set_device_count(n: u64) -> bool {
    if FROZEN.load(Ordering::Acquire) {
        return false;
    }
    DEVICE_COUNT.store(n, Ordering::Release);
    true
}

/// Live handles on DLA `dla`.
pub(crate) fn handles_on(dla: u64) -> usize {
    lock(&DEVICES).iter().filter(|d| d.dla == dla).count()
}

/// Registers a new handle.
pub(crate) fn insert(dev: Arc<Device>) {
    FROZEN.store(true, Ordering::Release);
    lock(&DEVICES).push(dev);
}

/// Removes a handle from the registry (later calls with it fail).
pub(crate) fn remove(h: cudlaDevHandle) -> Option<Arc<Device>> {
    let mut g = lock(&DEVICES);
    let i = g
        .iter()
        .position(|d| std::ptr::addr_eq(Arc::as_ptr(d), h))?;
    Some(g.swap_remove(i))
}

/// The device behind a live handle.
pub(crate) fn lookup(h: cudlaDevHandle) -> Option<Arc<Device>> {
    if h.is_null() {
        return None;
    }
    lock(&DEVICES)
        .iter()
        .find(|d| std::ptr::addr_eq(Arc::as_ptr(d), h))
        .cloned()
}

/// The device and module behind a live module handle.
pub(crate) fn lookup_module(h: cudlaModule) -> Option<(Arc<Device>, Arc<Module>)> {
    if h.is_null() {
        return None;
    }
    let dev = lock(&DEVICES)
        .iter()
        .find(|d| d.module_addr.load(Ordering::Acquire) == h as usize)
        .cloned()?;
    let m = lock(&dev.state).module.clone()?;
    std::ptr::addr_eq(Arc::as_ptr(&m), h).then_some((dev, m))
}

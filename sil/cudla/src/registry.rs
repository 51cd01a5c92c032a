//! The process-wide registry of live device handles and the SIL device count.
//!
//! Device handles are never-reused tokens (`DEV_TOKEN_BASE + n·DEV_TOKEN_STRIDE`), not
//! addresses, so a destroyed or made-up handle can never alias a live one. A device's module
//! handle is its token plus `MODULE_TOKEN_OFFSET` (one module per handle lifetime).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use cudla_sys::{cudlaDevHandle, cudlaModule};

use crate::device::{Device, Module, lock};
use crate::limits::{
    DEFAULT_DEVICE_COUNT, DEV_TOKEN_BASE, DEV_TOKEN_STRIDE, MAX_DEVICES, MODULE_TOKEN_OFFSET,
};

static DEVICES: Mutex<Vec<Arc<Device>>> = Mutex::new(Vec::new());
/// 0 until decided (by `cudlaSilSetDeviceCount`, the environment, or the default).
static DEVICE_COUNT: AtomicU64 = AtomicU64::new(0);
/// Set when the first device handle is created; the count is fixed from then on.
static FROZEN: AtomicBool = AtomicBool::new(false);
/// Device tokens handed out so far.
static NEXT_DEVICE: AtomicU64 = AtomicU64::new(1);

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

/// A fresh device token.
pub(crate) fn new_device_token() -> u64 {
    DEV_TOKEN_BASE + NEXT_DEVICE.fetch_add(1, Ordering::Relaxed) * DEV_TOKEN_STRIDE
}

/// Whether `t` is a device token this process handed out (live or destroyed).
fn issued_device(t: u64) -> bool {
    t > DEV_TOKEN_BASE
        && (t - DEV_TOKEN_BASE).is_multiple_of(DEV_TOKEN_STRIDE)
        && (t - DEV_TOKEN_BASE) / DEV_TOKEN_STRIDE < NEXT_DEVICE.load(Ordering::Relaxed)
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
    let i = g.iter().position(|d| d.token == h as u64)?;
    Some(g.swap_remove(i))
}

/// The device behind a live handle.
pub(crate) fn lookup(h: cudlaDevHandle) -> Option<Arc<Device>> {
    if h.is_null() {
        return None;
    }
    lock(&DEVICES).iter().find(|d| d.token == h as u64).cloned()
}

/// Why a module handle does not name a loaded module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ModuleLookup {
    /// Not a module handle at all (`cudlaErrorInvalidModule`).
    NotAModule,
    /// The handle of a module that is no longer loaded in any device: unloaded, or its device
    /// destroyed (`cudla.h`: `cudlaErrorInvalidDevice`).
    NotLoaded,
}

/// The device and module behind a live module handle.
pub(crate) fn lookup_module(h: cudlaModule) -> Result<(Arc<Device>, Arc<Module>), ModuleLookup> {
    let t = h as u64;
    let Some(dev_token) = t.checked_sub(MODULE_TOKEN_OFFSET) else {
        return Err(ModuleLookup::NotAModule);
    };
    if !issued_device(dev_token) {
        return Err(ModuleLookup::NotAModule);
    }
    let Some(dev) = lookup(dev_token as cudlaDevHandle) else {
        return Err(ModuleLookup::NotLoaded);
    };
    let st = lock(&dev.state);
    match st.module.clone() {
        Some(m) if m.token == t => {
            drop(st);
            Ok((dev, m))
        }
        _ if st.module_loaded_once => Err(ModuleLookup::NotLoaded),
        _ => Err(ModuleLookup::NotAModule),
    }
}

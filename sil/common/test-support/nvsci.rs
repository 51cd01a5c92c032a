//! NvSci helpers of the SIL engine twins' integration tests (sil-cudla, sil-cupva): the NvSci
//! modules, NvSciSync objects between the CPU and an engine and CPU-accessible NvSciBuf
//! buffers, built through the `nvsci-sys` C ABI as a C client builds them.
//!
//! Not a module of sil-common, which does not link the NvSci libraries: each test helper
//! module includes this file with `#[path]` and adds its engine's calls (the engine's
//! attribute-fill call goes in through the `fill` arguments).

use std::ffi::c_void;
use std::ptr::null_mut;

use nvsci_sys::*;

/// Asserts NvSci success.
#[track_caller]
pub fn sok(e: NvSciError) {
    assert_eq!(e, NvSciError_Success);
}

/// NvSci modules and a CPU wait context.
pub struct Sci {
    pub sync: NvSciSyncModule,
    pub buf: NvSciBufModule,
    pub ctx: NvSciSyncCpuWaitContext,
}

impl Sci {
    pub fn new() -> Self {
        let mut s = Sci {
            sync: null_mut(),
            buf: null_mut(),
            ctx: null_mut(),
        };
        // SAFETY: C ABI calls with pointers to live locals.
        unsafe {
            sok(NvSciSyncModuleOpen(&mut s.sync));
            sok(NvSciBufModuleOpen(&mut s.buf));
            sok(NvSciSyncCpuWaitContextAlloc(s.sync, &mut s.ctx));
        }
        s
    }

    /// An NvSciSync object between the CPU and an engine. The CPU's list needs CPU access,
    /// holds the permission the engine's role leaves to the CPU (`engine_waits`: the CPU
    /// signals, else it waits) and `extra`; `fill` fills the engine's list (its
    /// `...FillAttributes` call). The lists reconcile in the order CPU, engine.
    pub fn sync_with(
        &self,
        engine_waits: bool,
        extra: &[NvSciSyncAttrKeyValuePair],
        fill: impl FnOnce(&mut NvSciSyncAttrList),
    ) -> NvSciSyncObj {
        let cpu = true;
        let perm = if engine_waits {
            NvSciSyncAccessPerm_SignalOnly
        } else {
            NvSciSyncAccessPerm_WaitOnly
        };
        let mut pairs = vec![
            spair(NvSciSyncAttrKey_NeedCpuAccess, &cpu),
            spair(NvSciSyncAttrKey_RequiredPerm, &perm),
        ];
        pairs.extend_from_slice(extra);
        // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
        unsafe {
            let (mut engine_list, mut cpu_list) = (null_mut(), null_mut());
            sok(NvSciSyncAttrListCreate(self.sync, &mut engine_list));
            fill(&mut engine_list);
            sok(NvSciSyncAttrListCreate(self.sync, &mut cpu_list));
            sok(NvSciSyncAttrListSetAttrs(
                cpu_list,
                pairs.as_ptr(),
                pairs.len(),
            ));
            let lists = [cpu_list, engine_list];
            let (mut rec, mut conflict) = (null_mut(), null_mut());
            sok(NvSciSyncAttrListReconcile(
                lists.as_ptr(),
                2,
                &mut rec,
                &mut conflict,
            ));
            let mut obj = null_mut();
            sok(NvSciSyncObjAlloc(rec, &mut obj));
            NvSciSyncAttrListFree(engine_list);
            NvSciSyncAttrListFree(cpu_list);
            NvSciSyncAttrListFree(rec);
            obj
        }
    }

    /// An NvSciBuf object of `pairs`, reconciled alone; `fill` first adds the engine's
    /// attributes to the list (its `...FillAttributes` call), if it has any.
    pub fn buf_with(
        &self,
        pairs: &mut [NvSciBufAttrKeyValuePair],
        fill: impl FnOnce(NvSciBufAttrList),
    ) -> NvSciBufObj {
        // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
        unsafe {
            let mut list = null_mut();
            sok(NvSciBufAttrListCreate(self.buf, &mut list));
            fill(list);
            sok(NvSciBufAttrListSetAttrs(
                list,
                pairs.as_mut_ptr(),
                pairs.len(),
            ));
            let (mut rec, mut conflict) = (null_mut(), null_mut());
            sok(NvSciBufAttrListReconcile(&list, 1, &mut rec, &mut conflict));
            let mut obj = null_mut();
            sok(NvSciBufObjAlloc(rec, &mut obj));
            NvSciBufAttrListFree(list);
            NvSciBufAttrListFree(rec);
            obj
        }
    }

    /// A CPU-accessible raw buffer of `size` bytes; `fill` as for [`Sci::buf_with`].
    pub fn raw_with(&self, size: u64, fill: impl FnOnce(NvSciBufAttrList)) -> NvSciBufObj {
        let ty = NvSciBufType_RawBuffer;
        let perm = NvSciBufAccessPerm_ReadWrite;
        let cpu = true;
        let mut pairs = [
            pair(NvSciBufGeneralAttrKey_Types, &ty),
            pair(NvSciBufRawBufferAttrKey_Size, &size),
            pair(NvSciBufGeneralAttrKey_RequiredPerm, &perm),
            pair(NvSciBufGeneralAttrKey_NeedCpuAccess, &cpu),
        ];
        self.buf_with(&mut pairs, fill)
    }

    /// Waits on a fence from the CPU.
    pub fn wait(&self, f: &NvSciSyncFence, timeout_us: i64) -> NvSciError {
        // SAFETY: C ABI call with a live wait context and a live fence.
        unsafe { NvSciSyncFenceWait(f, self.ctx, timeout_us) }
    }
}

/// An NvSciBuf attribute pointing at `v`.
pub fn pair<T: ?Sized>(key: NvSciBufAttrKey, v: &T) -> NvSciBufAttrKeyValuePair {
    NvSciBufAttrKeyValuePair {
        key,
        value: v as *const T as *const c_void,
        len: std::mem::size_of_val(v),
    }
}

/// An NvSciSync attribute pointing at `v`.
pub fn spair<T: ?Sized>(key: NvSciSyncAttrKey, v: &T) -> NvSciSyncAttrKeyValuePair {
    NvSciSyncAttrKeyValuePair {
        attrKey: key,
        value: v as *const T as *const c_void,
        len: std::mem::size_of_val(v),
    }
}

//! The old route: close the NvSciSync module, then use a list made from it. NvSciSync and
//! NvSciBuf handles are the executive's own now (and a module refuses to close while a list,
//! object or wait context of it lives).
use orin_exec::engine::nvsci::{SyncAttrList, SyncModule};
use orin_exec::error::Context;

fn main() {
    let module = SyncModule::open().unwrap();
    let mut list = SyncAttrList::create(&module, Context::Platform).unwrap();
    module.close();
    let _ = list.require_deterministic(Context::Platform);
}

//! The old route: the SIL timing model was the C struct, whose bin pointers a safe setter
//! handed to the library. It is built from values now (`TimingModel::histogram`).
use orin_exec::engine::platform::dla_sil::TimingModel;

fn main() {
    let _ = TimingModel {
        kind: 2,
        numBins: 4,
        binUpperNs: 0x1000 as *const u64,
        binWeights: 0x2000 as *const u32,
        seed: 1,
    };
}

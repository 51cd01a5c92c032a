//! The trace file reader (`tools/trace`), as `orin-exec report` uses it: the meta header, every
//! record, and the streaming per-task summary.
#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use orin_exec_trace::{Summarizer, TraceReader};

fuzz_target!(|data: &[u8]| {
    let Ok(mut reader) = TraceReader::new(Box::new(Cursor::new(data.to_vec())), "fuzz.bin") else {
        return;
    };
    let mut summary = Summarizer::new(&reader.meta);
    while let Ok(Some(r)) = reader.next_record() {
        summary.add(&r);
    }
    let _ = (reader.truncated(), summary.finish());
});

//! The AEB preprocess on the PVA, from the generated tables: the task runs the VPU program
//! `aeb_preprocess` on `pva0` with the camera and image buffers bound by symbol; the program's
//! reference model is the GPU kernel's, with the manifest's parameters; the committed image is
//! a placeholder that says so.
//!
//! Covers: REQ-PVA-100, REQ-PVA-101, REQ-PVA-102

use aeb::app;
use aeb::schedule::SCHEDULE;
use orin_exec::kernel_model::ParamKind;
use orin_exec::table::{
    EngineKind, Param, PvaAccess, PvaParamKind, PvaProgramDesc, VpuAffinity, Work,
};

/// The program the `preprocess` task runs, and its parameter values.
fn preprocess() -> (&'static PvaProgramDesc, &'static [Param]) {
    let s = &SCHEDULE;
    let task = s.task(s.task_by_name("preprocess").expect("task `preprocess`"));
    let Work::Pva(work) = task.work else {
        panic!("`preprocess` is not PVA work: {:?}", task.work)
    };
    let engine = &s.engines[task.engine.0 as usize];
    assert_eq!(
        (engine.name, engine.kind, engine.instance, engine.vpu),
        ("pva0", EngineKind::Pva, 0, Some(VpuAffinity::Vpu0))
    );
    (
        &s.tables().pva_programs[work.program.0 as usize],
        work.params,
    )
}

#[test]
fn the_preprocess_runs_the_vpu_program_on_pva0_with_its_buffers_by_symbol() {
    let s = &SCHEDULE;
    let (program, values) = preprocess();
    assert_eq!(program.name, "aeb_preprocess");
    let names: Vec<&str> = program.params.iter().map(|p| p.name).collect();
    assert_eq!(names, ["src", "dst", "src_w", "src_h"]);
    let buffer = |name| Param::Buffer(s.buffer_by_name(name).expect("a buffer"));
    assert_eq!(
        values,
        [
            buffer("camera"),
            buffer("image"),
            Param::U32(128),
            Param::U32(96)
        ]
    );
    assert_eq!(
        (program.params[0].kind, program.params[1].kind),
        (
            PvaParamKind::Pointer(PvaAccess::Read),
            PvaParamKind::Pointer(PvaAccess::Write)
        )
    );
    // The GPU keeps the postprocess.
    let post = s.task(s.task_by_name("postprocess").expect("task `postprocess`"));
    assert!(matches!(post.work, Work::Gpu(_)), "{:?}", post.work);
}

#[test]
fn every_pva_program_has_the_gpu_kernel_model_with_the_manifest_parameters() {
    let programs = SCHEDULE.tables().pva_programs;
    assert!(!programs.is_empty());
    for program in programs {
        let &(_, module, kernel) = app::PVA_MODELS
            .iter()
            .find(|(name, ..)| *name == program.name)
            .unwrap_or_else(|| panic!("no model listed for `{}`", program.name));
        let model = orin_exec_kernels::model(module, kernel).expect("a kernel model");
        let kinds: Vec<ParamKind> = program
            .params
            .iter()
            .map(|p| match p.kind {
                PvaParamKind::Pointer(_) => ParamKind::DevPtr,
                PvaParamKind::U32 => ParamKind::U32,
                PvaParamKind::I32 => ParamKind::I32,
                PvaParamKind::U64 => ParamKind::U64,
                PvaParamKind::F32 => ParamKind::F32,
            })
            .collect();
        assert_eq!(model.params(), kinds, "program `{}`", program.name);
    }
    // The preprocess program shares the very model SIL CUDA runs for the GPU kernel.
    let gpu = orin_exec_kernels::model("aeb", "aeb_preprocess").expect("the kernel's model");
    let (_, module, kernel) = app::PVA_MODELS[0];
    assert!(std::ptr::addr_eq(
        gpu,
        orin_exec_kernels::model(module, kernel).unwrap()
    ));
}

#[test]
fn the_committed_vpu_image_is_a_placeholder_that_says_so() {
    let (program, _) = preprocess();
    let text = String::from_utf8_lossy(program.image);
    assert!(
        text.contains("placeholder") && text.contains("NOT a real VPU executable"),
        "{text}"
    );
    assert!(text.contains("PVA SDK"), "{text}");
}

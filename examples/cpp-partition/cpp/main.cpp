// The AEB perception slice as a C++ partition on the orin-exec C API (README.md here).
//
// The runtime is built from the C tables the generator emits for examples/aeb/schedule.toml;
// the five CPU tasks are C++ (tasks.cpp), bound through their generated typed contexts; the
// GPU and DLA work is the runtime's (on SIL: the project's kernel models and the SIL DLA).
// It prints one line per frame in the format of the Rust demo's progress line, then the
// demo's summary lines, so that ci/cpp-example.sh can compare the two.
//
//   aeb-partition [--frames N] [--decisions FILE] [--fail-decision-at N]
//
// `--fail-decision-at N`: the `decision` task reports a task error after deciding in frame N,
// so that the health monitor switches to the degraded chain (cpp_partition's check does the
// same on the Rust side).
//
// Exit status: 0 clean run, 2 usage error or the runtime could not start, 3 the run
// completed with faults detected, 4 safe stop (as the Rust demo).

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "aeb_tables.h"
#include "orin_exec.h"
#include "scenario.hpp"
#include "tasks.hpp"

namespace {

constexpr int kExitClean = 0;
constexpr int kExitError = 2;
constexpr int kExitFaults = 3;
constexpr int kExitSafeStop = 4;

// The Rust demo's SIL DLA timing model: uniform 3 to 5 ms per frame, seed 7 (aeb::app).
constexpr std::uint64_t kDlaMinNs = 3'000'000;
constexpr std::uint64_t kDlaMaxNs = 5'000'000;
constexpr std::uint64_t kDlaSeed = 7;

/// What the task functions and callbacks share (their `user` pointer).
struct App {
    aeb::DecisionLog log;
    std::optional<std::uint64_t> fail_decision_at;
    std::uint64_t faults = 0;
    bool safe_stop = false;
};

// ---- the CPU tasks: typed context -> the C++ body ----------------------------------------

std::int32_t sensor(const orin_exec_task_ctx_t* ctx, void*) {
    aeb_sensor_ctx_t cx;
    if (aeb_sensor_ctx(ctx, &cx) != ORIN_EXEC_OK) {
        return aeb::kBadBuffer;
    }
    return aeb::sensor(orin_exec_ctx_frame(ctx), cx.camera,
                       cx.camera_size);
}

std::int32_t sensor_fallback(const orin_exec_task_ctx_t* ctx, void*) {
    aeb_sensor_fallback_ctx_t cx;
    if (aeb_sensor_fallback_ctx(ctx, &cx) != ORIN_EXEC_OK) {
        return aeb::kBadBuffer;
    }
    return aeb::sensor(orin_exec_ctx_frame(ctx), cx.camera_fallback,
                       cx.camera_fallback_size);
}

std::int32_t decision(const orin_exec_task_ctx_t* ctx, void* user) {
    auto* app = static_cast<App*>(user);
    aeb_decision_ctx_t cx;
    if (aeb_decision_ctx(ctx, &cx) != ORIN_EXEC_OK) {
        return aeb::kBadBuffer;
    }
    const std::uint64_t frame = orin_exec_ctx_frame(ctx);
    const aeb::TaskCode code =
        aeb::decision(app->log, frame, orin_exec_ctx_inputs_valid(ctx),
                      cx.detection, cx.detection_size,
                      cx.presence, cx.presence_size,
                      cx.camera, cx.camera_size);
    if (code == aeb::kTaskOk && app->fail_decision_at == frame) {
        return aeb::kImplausible;
    }
    return code;
}

std::int32_t fallback_detector(const orin_exec_task_ctx_t* ctx, void*) {
    aeb_fallback_detector_ctx_t cx;
    if (aeb_fallback_detector_ctx(ctx, &cx) != ORIN_EXEC_OK) {
        return aeb::kBadBuffer;
    }
    return aeb::fallback_detector(cx.camera_fallback,
                                  cx.camera_fallback_size,
                                  cx.detection_fallback,
                                  cx.detection_fallback_size);
}

std::int32_t conservative_decision(const orin_exec_task_ctx_t* ctx, void* user) {
    auto* app = static_cast<App*>(user);
    aeb_conservative_decision_ctx_t cx;
    if (aeb_conservative_decision_ctx(ctx, &cx) != ORIN_EXEC_OK) {
        return aeb::kBadBuffer;
    }
    return aeb::conservative_decision(app->log, orin_exec_ctx_frame(ctx),
                                      orin_exec_ctx_inputs_valid(ctx),
                                      cx.detection_fallback,
                                      cx.detection_fallback_size);
}

// ---- names for the output ------------------------------------------------------------------

const char* task_name(std::uint16_t task) {
    return task < aeb_tables.tasks_len ? aeb_tables.tasks[task].name : "?";
}

const char* mode_name(std::uint8_t mode) {
    return mode < aeb_tables.modes_len ? aeb_tables.modes[mode].name : "?";
}

const char* fault_name(std::uint32_t kind) {
    switch (kind) {
        case ORIN_EXEC_FAULT_DEADLINE_MISS: return "deadline_miss";
        case ORIN_EXEC_FAULT_BUDGET_OVERRUN: return "budget_overrun";
        case ORIN_EXEC_FAULT_FENCE_TIMEOUT: return "fence_timeout";
        case ORIN_EXEC_FAULT_ENGINE_ERROR: return "engine_error";
        case ORIN_EXEC_FAULT_TASK_ERROR: return "task_error";
        default: return "?";
    }
}

/// Prints the Rust demo's wording of a reaction (aeb::app::reaction_text), no allocation.
void print_reaction(const orin_exec_fault_t& f) {
    switch (f.action) {
        case ORIN_EXEC_ACTION_LOG: std::printf("logged\n"); break;
        case ORIN_EXEC_ACTION_SKIP: std::printf("task skipped next frame\n"); break;
        case ORIN_EXEC_ACTION_SWITCH_MODE:
            std::printf("switch to mode `%s`\n", mode_name(f.mode));
            break;
        case ORIN_EXEC_ACTION_SAFE_STOP: std::printf("safe stop\n"); break;
        default: std::printf("?\n"); break;
    }
}

// ---- health: fault callback and safe-state hook --------------------------------------------

/// Every detected fault, after its frame, on the thread that steps (the Rust demo's line).
void on_fault(const orin_exec_fault_t* f, void* user) {
    static_cast<App*>(user)->faults += 1;
    std::printf("frame %4" PRIu64 ": detected %s on `%s` -> ", f->frame, fault_name(f->kind),
                task_name(f->task));
    print_reaction(*f);
}

/// The safe-state hook: in a car this would command the brake and hand over to the driver.
void on_safe_state(const orin_exec_fault_t* f, void* user) {
    static_cast<App*>(user)->safe_stop = true;
    std::fprintf(stderr,
                 "\nSAFE STOP in frame %" PRIu64 ": %s on `%s` -> brake applied, executive stopped\n",
                 f->frame, fault_name(f->kind), task_name(f->task));
}

/// A failed call: its code's name and the library's message, on stderr.
bool check(orin_exec_status_t s, const char* what) {
    if (s == ORIN_EXEC_OK) {
        return true;
    }
    std::fprintf(stderr, "aeb-partition: %s failed: %s: %s\n", what,
                 orin_exec_error_name(static_cast<int>(s)), orin_exec_last_error_message());
    return false;
}

struct Args {
    std::uint64_t frames = 300;
    const char* decisions = nullptr;
    std::optional<std::uint64_t> fail_decision_at;
};

/// A whole decimal number, or nothing.
std::optional<std::uint64_t> number(const char* s) {
    char* end = nullptr;
    const std::uint64_t v = std::strtoull(s, &end, 10);
    if (end == s || *end != '\0' || *s == '-') {
        return std::nullopt;
    }
    return v;
}

bool parse(int argc, char** argv, Args& args) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--frames" && i + 1 < argc) {
            const auto n = number(argv[++i]);
            if (!n || *n == 0) {
                std::fprintf(stderr, "aeb-partition: --frames takes a positive number\n");
                return false;
            }
            args.frames = *n;
        } else if (a == "--decisions" && i + 1 < argc) {
            args.decisions = argv[++i];
        } else if (a == "--fail-decision-at" && i + 1 < argc) {
            args.fail_decision_at = number(argv[++i]);
            if (!args.fail_decision_at) {
                std::fprintf(stderr, "aeb-partition: --fail-decision-at takes a frame number\n");
                return false;
            }
        } else {
            std::fprintf(stderr,
                         "usage: aeb-partition [--frames N] [--decisions FILE] "
                         "[--fail-decision-at N]\n");
            return false;
        }
    }
    return true;
}

/// The Rust demo's progress line of frame `f` (examples/aeb/src/main.rs, `run_frames`).
void print_frame(std::uint64_t f, std::uint64_t frames, const char* mode,
                 const std::optional<aeb::Decision>& d, std::uint64_t matched,
                 std::uint64_t decided) {
    char obstacle[32] = "none";
    if (const auto dist = aeb::obstacle_distance(aeb::time_of(f))) {
        std::snprintf(obstacle, sizeof obstacle, "%.1f m", *dist);
    }
    char decision[48] = "-";
    if (d) {
        char dist[24] = "  none ";
        if (d->distance_mm >= 0) {
            std::snprintf(dist, sizeof dist, "%5.1f m", d->distance_mm / 1000.0);
        }
        std::snprintf(decision, sizeof decision, "%s %s", d->brake ? "BRAKE" : "coast", dist);
    }
    std::printf("frame %4" PRIu64 "/%-4" PRIu64 " mode %-8s obstacle %-7s decision %-14s matched %4" PRIu64
                "/%-4" PRIu64 "\n",
                f + 1, frames, mode, obstacle, decision, matched, decided);
}

/// The decision line of `--decisions` (the format of `cpp_partition::decision_line`).
void write_decision(std::FILE* out, std::uint64_t f, const char* mode,
                    const std::optional<aeb::Decision>& d) {
    if (d) {
        std::fprintf(out, "%" PRIu64 " %s %d %" PRId32 " %d %d %d\n", f, mode, d->brake,
                     d->distance_mm, d->fallback, d->implausible, d->stale);
    } else {
        std::fprintf(out, "%" PRIu64 " %s -\n", f, mode);
    }
}

}  // namespace

int main(int argc, char** argv) {
    Args args;
    if (!parse(argc, argv, args)) {
        return kExitError;
    }
    if (orin_exec_abi_version() != ORIN_EXEC_ABI_VERSION) {
        std::fprintf(stderr, "aeb-partition: built for C API version %u, the library is %u\n",
                     static_cast<unsigned>(ORIN_EXEC_ABI_VERSION), orin_exec_abi_version());
        return kExitError;
    }
    std::FILE* decisions = nullptr;
    if (args.decisions != nullptr && (decisions = std::fopen(args.decisions, "w")) == nullptr) {
        std::fprintf(stderr, "aeb-partition: cannot write %s\n", args.decisions);
        return kExitError;
    }
    if (decisions != nullptr) {
        // The file's buffer is ours, not one stdio allocates at the first write in the run.
        static char buffer[1 << 16];
        std::setvbuf(decisions, buffer, _IOFBF, sizeof buffer);
    }
    // Printed first: stdio allocates its buffer here, not in the run after seal.
    std::printf("orin-exec AEB slice (C++ partition): %" PRIu64
                " frames at 30 Hz on SIL (virtual clock)\n",
                args.frames);
    static App app;  // lives as long as the runtime's workers may call the tasks
    app.fail_decision_at = args.fail_decision_at;

    // The Rust demo's options (aeb::app::config): virtual clock, 300 ms cap on one wait.
    orin_exec_config_t cfg;
    orin_exec_config_default(&cfg);
    cfg.virtual_clock = true;
    cfg.virtual_wait_cap_us = 300'000;
    orin_exec_runtime_t* rt = nullptr;
    if (!check(orin_exec_create(&aeb_tables, &cfg, &rt), "orin_exec_create")) {
        return kExitError;
    }
    const bool ready =
        check(orin_exec_bind(rt, AEB_TASK_SENSOR, sensor, &app), "bind sensor") &&
        check(orin_exec_bind(rt, AEB_TASK_DECISION, decision, &app), "bind decision") &&
        check(orin_exec_bind(rt, AEB_TASK_SENSOR_FALLBACK, sensor_fallback, &app),
              "bind sensor_fallback") &&
        check(orin_exec_bind(rt, AEB_TASK_FALLBACK_DETECTOR, fallback_detector, &app),
              "bind fallback_detector") &&
        check(orin_exec_bind(rt, AEB_TASK_CONSERVATIVE_DECISION, conservative_decision, &app),
              "bind conservative_decision") &&
        check(orin_exec_set_fault_callback(rt, on_fault, &app), "orin_exec_set_fault_callback") &&
        check(orin_exec_set_safe_state(rt, on_safe_state, &app), "orin_exec_set_safe_state") &&
        // On SIL the GPU kernels run as the project's reference models, as in the Rust demo.
        check(orin_exec_sil_register_kernel_models(rt), "orin_exec_sil_register_kernel_models") &&
        // The preprocess is a PVA program; on SIL it runs as the model of the GPU kernel it
        // replaces, as in the Rust demo (app::PVA_MODELS).
        check(orin_exec_sil_register_pva_model(rt, "aeb_preprocess", "aeb", "aeb_preprocess"),
              "orin_exec_sil_register_pva_model") &&
        check(orin_exec_init(rt), "orin_exec_init") &&
        check(orin_exec_sil_set_dla_timing(rt, AEB_ENGINE_DLA0, kDlaMinNs, kDlaMaxNs, kDlaSeed),
              "orin_exec_sil_set_dla_timing") &&
        check(orin_exec_seal(rt), "orin_exec_seal");
    if (!ready) {
        orin_exec_destroy(rt);
        return kExitError;
    }

    std::uint64_t matched = 0, decided = 0, truth_brakes = 0, output_brakes = 0;
    bool failed = false;
    for (std::uint64_t i = 0; i < args.frames; ++i) {
        orin_exec_frame_report_t report{};
        if (!check(orin_exec_step(rt, &report), "orin_exec_step")) {
            failed = true;
            break;
        }
        const std::uint64_t f = report.frame;
        const bool truth = aeb::ground_truth_brake(f);
        truth_brakes += truth;
        const auto d = app.log.get(f);
        if (d) {
            decided += 1;
            output_brakes += d->brake;
            matched += d->brake == truth;
        }
        const char* mode = mode_name(report.mode);
        print_frame(f, args.frames, mode, d, matched, decided);
        if (decisions != nullptr) {
            write_decision(decisions, f, mode, d);
        }
        if (report.stopped) {
            break;
        }
    }
    const bool shut = check(orin_exec_destroy(rt), "orin_exec_destroy");
    if (decisions != nullptr && std::fclose(decisions) != 0) {
        std::fprintf(stderr, "aeb-partition: cannot write %s\n", args.decisions);
        failed = true;
    }
    std::printf("brake decisions: %" PRIu64 " of %" PRIu64
                " frames match the scenario's ground truth (%" PRIu64
                " brake frames in the truth, %" PRIu64 " in the output)\n",
                matched, decided, truth_brakes, output_brakes);
    std::printf("faults detected: %" PRIu64 "\n", app.faults);
    if (failed || !shut) {
        return kExitError;
    }
    return app.safe_stop ? kExitSafeStop : app.faults > 0 ? kExitFaults : kExitClean;
}

// The CPU task bodies of the AEB slice in C++: the arithmetic of examples/aeb/src/tasks.rs on
// the buffers the runtime hands a task (pointer and size of each declared buffer), so that a
// C++ partition and the Rust demo make the same decisions bit for bit.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace aeb {

/// A brake decision of one frame (the Rust demo's `tasks::Decision`).
struct Decision {
    bool brake = false;
    std::int32_t distance_mm = -1;  // -1: none
    bool fallback = false;          // made by the degraded-mode chain
    bool implausible = false;       // the plausibility monitor rejected the detection
    bool stale = false;             // inputs were stale (a dependency timed out)

    bool operator==(const Decision& o) const {
        return brake == o.brake && distance_mm == o.distance_mm && fallback == o.fallback &&
               implausible == o.implausible && stale == o.stale;
    }
};

/// The last 256 decisions, written by the decision tasks on their worker thread and read by
/// the main thread after the frame: no lock, no allocation. Each slot holds the frame it was
/// written for; a read that sees another frame, or a write in progress, returns nothing.
class DecisionLog {
public:
    void record(std::uint64_t frame, const Decision& d);
    std::optional<Decision> get(std::uint64_t frame) const;

private:
    static constexpr std::size_t kSlots = 256;
    static constexpr std::uint64_t kWriting = ~std::uint64_t{0};
    struct Slot {
        std::atomic<std::uint64_t> frame{kWriting};
        std::atomic<std::uint64_t> word{0};
    };
    std::array<Slot, kSlots> slots_{};
};

/// A task's result: 0 done, otherwise the application fault code the runtime reports as a
/// task error (the Rust demo's `TaskFault::App { code }`).
using TaskCode = std::int32_t;
inline constexpr TaskCode kTaskOk = 0;
/// The plausibility monitor rejected the detection (the health monitor switches to degraded).
inline constexpr TaskCode kImplausible = 2;
/// A buffer is smaller than the task's layout needs (a schedule / code mismatch).
inline constexpr TaskCode kBadBuffer = 3;

/// `sensor` and `sensor_fallback`: renders the scenario's camera frame into `camera`.
TaskCode sensor(std::uint64_t frame, std::uint8_t* camera, std::size_t camera_len);

/// `decision`: time to collision from the GPU's detection (4 x i32), next to an independent
/// plausibility monitor checking it against the DLA's presence logits (channel pitch 64) and
/// the raw camera image.
TaskCode decision(DecisionLog& log, std::uint64_t frame, bool inputs_valid,
                  const std::uint8_t* detection, std::size_t detection_len,
                  const std::uint8_t* presence, std::size_t presence_len,
                  const std::uint8_t* camera, std::size_t camera_len);

/// `fallback_detector`: a CPU detector on `camera_fallback`, writes `detection_fallback`.
TaskCode fallback_detector(const std::uint8_t* camera, std::size_t camera_len,
                           std::uint8_t* detection, std::size_t detection_len);

/// `conservative_decision`: brakes one second of time to collision earlier.
TaskCode conservative_decision(DecisionLog& log, std::uint64_t frame, bool inputs_valid,
                               const std::uint8_t* detection, std::size_t detection_len);

}  // namespace aeb

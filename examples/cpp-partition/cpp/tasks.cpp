#include "tasks.hpp"

#include <cmath>
#include <cstring>

#include "scenario.hpp"

namespace aeb {

// The packing of the Rust demo's DecisionLog: flags in the high word, distance in the low.
void DecisionLog::record(std::uint64_t frame, const Decision& d) {
    const std::uint64_t flags = std::uint64_t{d.brake} | std::uint64_t{d.fallback} << 1 |
                                std::uint64_t{d.implausible} << 2 | std::uint64_t{d.stale} << 3;
    const std::uint64_t word = flags << 32 | static_cast<std::uint32_t>(d.distance_mm);
    Slot& s = slots_[frame % kSlots];
    s.frame.store(kWriting, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    s.word.store(word, std::memory_order_relaxed);
    s.frame.store(frame, std::memory_order_release);
}

std::optional<Decision> DecisionLog::get(std::uint64_t frame) const {
    const Slot& s = slots_[frame % kSlots];
    if (s.frame.load(std::memory_order_acquire) != frame) {
        return std::nullopt;
    }
    const std::uint64_t word = s.word.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (s.frame.load(std::memory_order_relaxed) != frame) {
        return std::nullopt;
    }
    const std::uint64_t flags = word >> 32;
    Decision d;
    d.brake = (flags & 1) != 0;
    d.distance_mm = static_cast<std::int32_t>(static_cast<std::uint32_t>(word));
    d.fallback = (flags & 2) != 0;
    d.implausible = (flags & 4) != 0;
    d.stale = (flags & 8) != 0;
    return d;
}

namespace {

/// Brake when the obstacle is closer than `ttc` seconds at the ego speed.
bool brake_for(std::int32_t distance_mm, double ttc) {
    return distance_mm >= 0 && (static_cast<double>(distance_mm) / 1000.0) / kEgoSpeed < ttc;
}

/// Lowest image row in the ego lane (columns 48..80) with at least 3 obstacle-bright pixels.
std::optional<std::int64_t> bright_bottom_row(const std::uint8_t* image) {
    for (std::int64_t y = kH - 1; y >= kHorizon; --y) {
        int bright = 0;
        for (std::int64_t x = 48; x < 80; ++x) {
            bright += image[y * kW + x] > 200;
        }
        if (bright >= 3) {
            return y;
        }
    }
    return std::nullopt;
}

std::int32_t distance_from_bottom_row(std::int64_t row) {
    const std::int64_t yb = row + 1;
    if (yb <= kHorizon) {
        return -1;
    }
    return static_cast<std::int32_t>(std::round(1000.0 * kFh / static_cast<double>(yb - kHorizon)));
}

/// The 4 x i32 detection {found, row, score, distance_mm} (copied: the buffer is bytes).
std::array<std::int32_t, 4> read_detection(const std::uint8_t* bytes) {
    std::array<std::int32_t, 4> det{};
    std::memcpy(det.data(), bytes, sizeof det);
    return det;
}

constexpr std::size_t kImageLen = static_cast<std::size_t>(kW * kH);
constexpr std::size_t kDetectionLen = 4 * sizeof(std::int32_t);

}  // namespace

TaskCode sensor(std::uint64_t frame, std::uint8_t* camera, std::size_t camera_len) {
    return render(frame, camera, camera_len) ? kTaskOk : kBadBuffer;
}

TaskCode decision(DecisionLog& log, std::uint64_t frame, bool inputs_valid,
                  const std::uint8_t* detection, std::size_t detection_len,
                  const std::uint8_t* presence, std::size_t presence_len,
                  const std::uint8_t* camera, std::size_t camera_len) {
    if (!inputs_valid) {
        // The perception chain did not deliver in time: brake, the fault is already reported.
        log.record(frame, Decision{true, -1, false, false, true});
        return kTaskOk;
    }
    if (detection_len < kDetectionLen || presence_len < 65 || camera_len < kImageLen) {
        return kBadBuffer;
    }
    const auto det = read_detection(detection);
    const bool found = det[0] == 1;
    const std::int32_t distance_mm = found ? det[3] : -1;

    // Plausibility monitor (independent of the decision path).
    const auto logit = [&](std::size_t i) { return static_cast<std::int8_t>(presence[i]); };
    const bool dla_says_obstacle = logit(64) > logit(0);
    const auto camera_row = bright_bottom_row(camera);
    const bool camera_near = camera_row && *camera_row >= kHorizon + 8;  // closer than ~30 m
    const bool implausible = found != dla_says_obstacle ||
                             (found && (distance_mm < 500 || distance_mm > 120000)) ||
                             (found && !camera_row) || (!found && camera_near);
    if (implausible) {
        log.record(frame, Decision{true, distance_mm, false, true, false});
        return kImplausible;
    }
    const bool brake = found && brake_for(distance_mm, kTtcBrakeS);
    log.record(frame, Decision{brake, distance_mm, false, false, false});
    return kTaskOk;
}

TaskCode fallback_detector(const std::uint8_t* camera, std::size_t camera_len,
                           std::uint8_t* detection, std::size_t detection_len) {
    if (camera_len < kImageLen || detection_len < kDetectionLen) {
        return kBadBuffer;
    }
    const auto row = bright_bottom_row(camera);
    const std::array<std::int32_t, 4> out =
        row ? std::array<std::int32_t, 4>{1, static_cast<std::int32_t>(*row), 0,
                                          distance_from_bottom_row(*row)}
            : std::array<std::int32_t, 4>{0, -1, 0, -1};
    std::memcpy(detection, out.data(), sizeof out);
    return kTaskOk;
}

TaskCode conservative_decision(DecisionLog& log, std::uint64_t frame, bool inputs_valid,
                               const std::uint8_t* detection, std::size_t detection_len) {
    if (detection_len < kDetectionLen) {
        return kBadBuffer;
    }
    const bool stale = !inputs_valid;
    const auto det = read_detection(detection);
    const std::int32_t distance_mm = det[0] == 1 ? det[3] : -1;
    const bool brake = stale || brake_for(distance_mm, kTtcBrakeS + 1.0);
    log.record(frame, Decision{brake, distance_mm, true, false, stale});
    return kTaskOk;
}

}  // namespace aeb

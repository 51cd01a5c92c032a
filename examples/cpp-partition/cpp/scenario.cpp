#include "scenario.hpp"

#include <algorithm>
#include <cmath>

namespace aeb {

std::optional<double> obstacle_distance(double t) {
    if (t < 5.0) {
        return 66.0 - kEgoSpeed * t;
    }
    if (t >= 6.0 && t < 10.0) {
        return 55.0 - kEgoSpeed * (t - 6.0);
    }
    return std::nullopt;
}

double time_of(std::uint64_t frame) {
    // Whole frames within the cycle, so every cycle is the same to the bit.
    return static_cast<double>(frame % kCycleFrames) / kFps;
}

bool ground_truth_brake(std::uint64_t frame) {
    const auto d = obstacle_distance(time_of(frame));
    return d && *d / kEgoSpeed < kTtcBrakeS;
}

// std::round rounds half away from zero, as Rust's f64::round does.
static std::int64_t round_to_int(double a) { return static_cast<std::int64_t>(std::round(a)); }

bool render(std::uint64_t frame, std::uint8_t* out, std::size_t len) {
    if (out == nullptr || len < static_cast<std::size_t>(kW * kH)) {
        return false;
    }
    for (std::int64_t y = 0; y < kH; ++y) {
        for (std::int64_t x = 0; x < kW; ++x) {
            std::int64_t v;
            if (y < kHorizon) {
                v = 170;
            } else {
                const std::int64_t off = (y - kHorizon) * 3 / 2;
                if (x == std::min(64 + off, kW - 1) || x == std::max(64 - off, std::int64_t{0})) {
                    v = 140;
                } else {
                    v = 60 + (y - kHorizon) / 3;
                }
            }
            out[y * kW + x] = static_cast<std::uint8_t>(v);
        }
    }
    const auto d = obstacle_distance(time_of(frame));
    if (!d) {
        return true;
    }
    const std::int64_t yb = kHorizon + round_to_int(kFh / *d);
    const std::int64_t h = round_to_int(300.0 / *d);
    const std::int64_t w = round_to_int(360.0 / *d);
    const std::int64_t x0 = 64 - w / 2;
    const auto paint = [&](std::int64_t y, std::uint8_t v) {
        if (y >= 0 && y < kH) {
            for (std::int64_t x = std::max(x0, std::int64_t{0}); x < std::min(x0 + w, kW); ++x) {
                out[y * kW + x] = v;
            }
        }
    };
    for (std::int64_t y = yb - h; y < yb; ++y) {
        paint(y, 230);
    }
    paint(yb, 20);
    paint(yb + 1, 20);
    return true;
}

}  // namespace aeb

// The AEB driving scenario in C++: the same obstacle trajectory, synthetic camera image and
// ground truth as examples/aeb/src/scenario.rs (examples/aeb/README.md, "The synthetic
// scene"), with the same double arithmetic, so both partitions see the same pixels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace aeb {

/// Frames per second.
inline constexpr double kFps = 30.0;
/// Image width (row pitch) and height.
inline constexpr std::int64_t kW = 128;
inline constexpr std::int64_t kH = 96;
/// Horizon row.
inline constexpr std::int64_t kHorizon = 24;
/// Focal length (px) times camera height (m).
inline constexpr double kFh = 240.0;
/// Brake when the time to collision is below this, in seconds.
inline constexpr double kTtcBrakeS = 2.0;
/// Ego speed, m/s.
inline constexpr double kEgoSpeed = 12.0;
/// One encounter cycle (11 s) in frames; the scenario repeats it.
inline constexpr std::uint64_t kCycleFrames = 330;

/// Where the obstacle is at time `t` (s) of the cycle, if there is one in the ego lane.
std::optional<double> obstacle_distance(double t);
/// Scenario time of a frame within its encounter cycle, s.
double time_of(std::uint64_t frame);
/// Brake when an obstacle is closer than kTtcBrakeS seconds.
bool ground_truth_brake(std::uint64_t frame);
/// Render the camera image of `frame` (row-major, pitch kW) into `out`; false (nothing
/// written) when `len` is smaller than one image.
bool render(std::uint64_t frame, std::uint8_t* out, std::size_t len);

}  // namespace aeb

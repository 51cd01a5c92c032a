//! The driving scenario: a known obstacle trajectory, the synthetic camera image it produces
//! (examples/aeb/README.md, "The synthetic scene") and the ground-truth brake decision.

/// Frames per second.
pub const FPS: f64 = 30.0;
/// Image width and height.
pub const W: usize = 128;
/// Image height.
pub const H: usize = 96;
/// Horizon row.
pub const HORIZON: i64 = 24;
/// Focal length (px) times camera height (m).
pub const FH: f64 = 240.0;
/// Brake when the time to collision is below this, in seconds.
pub const TTC_BRAKE_S: f64 = 2.0;

/// Ego speed, m/s (from the vehicle bus in a real car).
pub const EGO_SPEED: f64 = 12.0;

/// The length of one encounter cycle in frames (11 s): the scenario repeats it for as long as
/// the run lasts, so that a long run's ground truth keeps both decisions (about 27 % brake).
pub const CYCLE_FRAMES: u64 = 330;

/// Where the obstacle is at time `t` (s) of the cycle: two stationary obstacles in the ego
/// lane, the first leaves the lane at 5 s, the second appears at 6 s and leaves at 10 s (7 m
/// ahead), the lane stays empty until the cycle starts again at 11 s.
pub fn obstacle_distance(t: f64) -> Option<f64> {
    if t < 5.0 {
        Some(66.0 - EGO_SPEED * t)
    } else if (6.0..10.0).contains(&t) {
        Some(55.0 - EGO_SPEED * (t - 6.0))
    } else {
        None
    }
}

/// Scenario time of a frame within its encounter cycle, s (whole frames are counted, so every
/// cycle is the same to the bit).
pub fn time_of(frame: u64) -> f64 {
    (frame % CYCLE_FRAMES) as f64 / FPS
}

/// What the car should do: brake when an obstacle is closer than `TTC_BRAKE_S` seconds.
pub fn ground_truth_brake(frame: u64) -> bool {
    obstacle_distance(time_of(frame)).is_some_and(|d| d / EGO_SPEED < TTC_BRAKE_S)
}

fn round_div(a: f64) -> i64 {
    a.round() as i64
}

/// Render the camera image of `frame` (row-major, pitch 128) into `out`.
pub fn render(frame: u64, out: &mut [u8]) {
    let out = &mut out[..W * H];
    for y in 0..H as i64 {
        for x in 0..W as i64 {
            let v = if y < HORIZON {
                170
            } else {
                let off = (y - HORIZON) * 3 / 2;
                if x == (64 + off).min(W as i64 - 1) || x == (64 - off).max(0) {
                    140
                } else {
                    60 + (y - HORIZON) / 3
                }
            };
            out[y as usize * W + x as usize] = v as u8;
        }
    }
    let Some(d) = obstacle_distance(time_of(frame)) else {
        return;
    };
    let yb = HORIZON + round_div(FH / d);
    let h = round_div(300.0 / d);
    let w = round_div(360.0 / d);
    let x0 = 64 - w / 2;
    let mut paint = |y: i64, v: u8| {
        if (0..H as i64).contains(&y) {
            for x in x0.max(0)..(x0 + w).min(W as i64) {
                out[y as usize * W + x as usize] = v;
            }
        }
    };
    for y in yb - h..yb {
        paint(y, 230);
    }
    paint(yb, 20);
    paint(yb + 1, 20);
}

/// Covers: REQ-AEB-001
#[cfg(test)]
mod tests {
    use super::*;

    /// Covers: REQ-AEB-003
    #[test]
    fn ground_truth_brakes_in_both_approaches_only() {
        let brake: Vec<u64> = (0..300).filter(|&f| ground_truth_brake(f)).collect();
        assert!(brake.contains(&120) && brake.contains(&290));
        assert!(!brake.contains(&100) && !brake.contains(&160) && !brake.contains(&200));
    }

    /// Covers: REQ-ROB-086
    #[test]
    fn the_encounters_repeat_over_a_long_run() {
        let brakes = |frames: std::ops::Range<u64>| frames.filter(|&f| ground_truth_brake(f));
        let first: Vec<u64> = brakes(0..CYCLE_FRAMES).collect();
        let far = 300 * CYCLE_FRAMES;
        let later: Vec<u64> = brakes(far..far + CYCLE_FRAMES).map(|f| f - far).collect();
        assert_eq!(first, later);
        // Over 10^5 frames both decisions stay frequent: neither dominates the match count.
        let n = brakes(0..100_000).count() as f64 / 100_000.0;
        assert!((0.2..0.4).contains(&n), "brake share {n}");
        // Inside the cycle the lane empties after the second approach, before the first again.
        assert!(obstacle_distance(time_of(CYCLE_FRAMES - 1)).is_none());
        assert!(obstacle_distance(time_of(299)).is_some_and(|d| d > 6.0));
    }

    #[test]
    fn the_obstacle_is_drawn_at_its_bottom_edge() {
        let mut img = vec![0u8; W * H];
        render(60, &mut img); // t = 2 s, d = 42 m, yb = 24 + 6 = 30
        assert_eq!(img[29 * W + 64], 230);
        assert_eq!(img[30 * W + 64], 20);
        render(165, &mut img); // no obstacle
        assert!(img.iter().all(|&p| p != 230));
    }
}

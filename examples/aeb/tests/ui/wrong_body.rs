// A body of one task cannot stand in for another: `FallbackDetector` is not a `decision`.
use aeb::schedule::Bodies;
use aeb::tasks::{ConservativeDecision, DecisionLog, FallbackDetector, Sensor};

static LOG: DecisionLog = DecisionLog::new();

fn main() {
    let _bodies = Bodies {
        sensor: Box::leak(Box::new(Sensor)),
        sensor_fallback: Box::leak(Box::new(Sensor)),
        decision: Box::leak(Box::new(FallbackDetector)),
        fallback_detector: Box::leak(Box::new(FallbackDetector)),
        conservative_decision: Box::leak(Box::new(ConservativeDecision { log: &LOG })),
    };
}

// Every CPU task needs a body: `Bodies` has one field per task.
use aeb::tasks::{ConservativeDecision, DecisionLog, DecisionTask, FallbackDetector, Sensor};
use aeb::schedule::Bodies;

static LOG: DecisionLog = DecisionLog::new();

fn main() {
    let _bodies = Bodies {
        sensor: Box::leak(Box::new(Sensor)),
        sensor_fallback: Box::leak(Box::new(Sensor)),
        decision: Box::leak(Box::new(DecisionTask { log: &LOG })),
        fallback_detector: Box::leak(Box::new(FallbackDetector)),
        // `conservative_decision` is missing.
    };
    let _ = ConservativeDecision { log: &LOG };
}

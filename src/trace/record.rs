//! Trace records: (time, frame, task, event, value).

use crate::table::{Action, FaultKind};

/// What happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Event {
    /// A major frame was released; value = release error in ns (actual - planned, signed).
    FrameRelease,
    /// Accelerator work was submitted; value = the fence value it will signal.
    Submit,
    /// A task started executing (CPU: measured; GPU: timer stamp; DLA: from its fences).
    TaskStart,
    /// A task finished; value = execution time in ns.
    TaskEnd,
    /// A task ran as a no-op (skipped by the health monitor).
    TaskSkipped,
    /// A fault was detected; value = the fault kind index (see [`FaultKind::ALL`]).
    Fault(FaultKind),
    /// The health monitor reacted; value = a mode index for mode switches, else 0.
    Reaction(Action),
    /// The executive switched mode; value = the new mode index.
    ModeSwitch,
    /// Records were lost to ring overflow before this one; value = how many.
    Overflow,
}

impl Event {
    /// A compact code for the record's event field.
    pub const fn code(self) -> u16 {
        match self {
            Event::FrameRelease => 1,
            Event::Submit => 2,
            Event::TaskStart => 3,
            Event::TaskEnd => 4,
            Event::TaskSkipped => 5,
            Event::Fault(k) => 0x10 + fault_index(k),
            Event::Reaction(Action::Log) => 0x20,
            Event::Reaction(Action::Skip) => 0x21,
            Event::Reaction(Action::SwitchMode(_)) => 0x22,
            Event::Reaction(Action::SafeStop) => 0x23,
            Event::ModeSwitch => 0x30,
            Event::Overflow => 0x31,
        }
    }

    /// The event for a code; mode switches decode with mode 0 (the value field holds the mode).
    pub const fn from_code(code: u16, value: u64) -> Option<Event> {
        use crate::table::ModeId;
        Some(match code {
            1 => Event::FrameRelease,
            2 => Event::Submit,
            3 => Event::TaskStart,
            4 => Event::TaskEnd,
            5 => Event::TaskSkipped,
            0x10..=0x14 => Event::Fault(FaultKind::ALL[(code - 0x10) as usize]),
            0x20 => Event::Reaction(Action::Log),
            0x21 => Event::Reaction(Action::Skip),
            0x22 => Event::Reaction(Action::SwitchMode(ModeId(value as u8))),
            0x23 => Event::Reaction(Action::SafeStop),
            0x30 => Event::ModeSwitch,
            0x31 => Event::Overflow,
            _ => return None,
        })
    }

    /// A short name for reports.
    pub const fn name(self) -> &'static str {
        match self {
            Event::FrameRelease => "release",
            Event::Submit => "submit",
            Event::TaskStart => "start",
            Event::TaskEnd => "end",
            Event::TaskSkipped => "skipped",
            Event::Fault(k) => k.name(),
            Event::Reaction(Action::Log) => "reaction:log",
            Event::Reaction(Action::Skip) => "reaction:skip",
            Event::Reaction(Action::SwitchMode(_)) => "reaction:switch_mode",
            Event::Reaction(Action::SafeStop) => "reaction:safe_stop",
            Event::ModeSwitch => "mode_switch",
            Event::Overflow => "overflow",
        }
    }
}

const fn fault_index(kind: FaultKind) -> u16 {
    match kind {
        FaultKind::DeadlineMiss => 0,
        FaultKind::BudgetOverrun => 1,
        FaultKind::FenceTimeout => 2,
        FaultKind::EngineError => 3,
        FaultKind::TaskError => 4,
    }
}

/// Task field of records that concern no task (frame releases, mode switches).
pub const NO_TASK: u16 = u16::MAX;

/// One trace record (32 bytes when stored).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Record {
    /// Time in ns on the executive's clock.
    pub time_ns: u64,
    /// Major frame number.
    pub frame: u64,
    /// Task index, or [`NO_TASK`].
    pub task: u16,
    /// What happened.
    pub event: Event,
    /// Event-specific value.
    pub value: u64,
}

impl Record {
    /// Pack into four words.
    #[inline]
    pub const fn pack(&self) -> [u64; 4] {
        [
            self.time_ns,
            self.frame,
            ((self.task as u64) << 16) | self.event.code() as u64,
            self.value,
        ]
    }

    /// Unpack four words; `None` for an unknown event code.
    pub const fn unpack(words: [u64; 4]) -> Option<Record> {
        let code = (words[2] & 0xffff) as u16;
        match Event::from_code(code, words[3]) {
            Some(event) => Some(Record {
                time_ns: words[0],
                frame: words[1],
                task: (words[2] >> 16) as u16,
                event,
                value: words[3],
            }),
            None => None,
        }
    }
}

/// Covers: REQ-SCH-014
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_round_trips() {
        use crate::table::ModeId;
        let mut events = [Event::FrameRelease; 12];
        let all = [
            Event::FrameRelease,
            Event::Submit,
            Event::TaskStart,
            Event::TaskEnd,
            Event::TaskSkipped,
            Event::Fault(FaultKind::FenceTimeout),
            Event::Reaction(Action::Log),
            Event::Reaction(Action::Skip),
            Event::Reaction(Action::SwitchMode(ModeId(3))),
            Event::Reaction(Action::SafeStop),
            Event::ModeSwitch,
            Event::Overflow,
        ];
        events.copy_from_slice(&all);
        for (i, e) in events.into_iter().enumerate() {
            let value = if matches!(e, Event::Reaction(Action::SwitchMode(_))) {
                3
            } else {
                i as u64
            };
            let r = Record {
                time_ns: 10 + i as u64,
                frame: 7,
                task: 2,
                event: e,
                value,
            };
            assert_eq!(Record::unpack(r.pack()), Some(r));
        }
        for k in FaultKind::ALL {
            let r = Record {
                time_ns: 1,
                frame: 1,
                task: NO_TASK,
                event: Event::Fault(k),
                value: 0,
            };
            assert_eq!(Record::unpack(r.pack()), Some(r));
        }
    }
}

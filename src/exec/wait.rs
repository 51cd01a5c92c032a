//! How a CPU thread waits for a task's completion fence: the schedule's [`CpuWait`] policy
//! (per engine or task) on the real clock; the virtual clock always blocks, since its waits
//! end as soon as the simulated engines get there.
//!
//! A spin window is relative to the frame's release: before it the waiter sleeps until the
//! signal wakes it (or the window opens), inside it spins without yielding, after it sleeps
//! again until the limit. The time spun is returned so that it can be reported.

use crate::engine::nvsci::{CpuWaitContext, RawFence, Waited};
use crate::engine::platform::Clock;
use crate::error::{Context, Result};
use crate::table::CpuWait;

/// The outcome of a wait and the CPU time it spent spinning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WaitResult {
    pub reached: bool,
    pub spun_ns: u64,
}

/// When a wait may last.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Until {
    pub clock: Clock,
    /// The release of the frame the policy's window is relative to.
    pub release_ns: u64,
    /// The latest the wait may end (absolute, executive clock).
    pub limit_ns: u64,
    /// On the virtual clock: the real-time cap instead of the limit, µs.
    pub virtual_cap_us: u64,
}

/// Wait for `fence` following `policy` within `until`.
pub(crate) fn wait_for(
    ctx: &mut CpuWaitContext,
    fence: &RawFence,
    policy: CpuWait,
    until: Until,
    context: Context,
) -> Result<WaitResult> {
    let Until {
        clock,
        release_ns,
        limit_ns,
        virtual_cap_us,
    } = until;
    let block = |ctx: &mut CpuWaitContext, until: u64| -> Result<bool> {
        let us = until.saturating_sub(clock.now_ns()) / 1000;
        Ok(ctx.wait(fence, us, context)? == Waited::Reached)
    };
    let (from_ns, until_ns) = match (clock, policy) {
        (Clock::Virtual, _) => {
            let reached = ctx.wait(fence, virtual_cap_us, context)? == Waited::Reached;
            return Ok(WaitResult {
                reached,
                spun_ns: 0,
            });
        }
        (Clock::Real, CpuWait::Block) => {
            return Ok(WaitResult {
                reached: block(ctx, limit_ns)?,
                spun_ns: 0,
            });
        }
        (Clock::Real, CpuWait::Spin { from_ns, until_ns }) => (from_ns, until_ns),
    };
    let opens = release_ns.saturating_add(from_ns).min(limit_ns);
    let closes = release_ns.saturating_add(until_ns).min(limit_ns);
    let done = |reached| WaitResult {
        reached,
        spun_ns: 0,
    };
    if clock.now_ns() < opens && block(ctx, opens)? {
        return Ok(done(true));
    }
    let started = clock.now_ns();
    let mut spun = done(false);
    if started < closes {
        let us = (closes - started).div_ceil(1000);
        spun.reached = ctx.wait_spinning(fence, us, context)? == Waited::Reached;
        spun.spun_ns = clock.now_ns().saturating_sub(started);
    }
    if !spun.reached && clock.now_ns() < limit_ns {
        spun.reached = block(ctx, limit_ns)?;
    }
    Ok(spun)
}

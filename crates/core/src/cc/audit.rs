//! Which of the `Mechanism` trait's default hooks ran, so that a test can tell the hooks a
//! mechanism implements from the ones it leaves to the defaults, and hold them against what it
//! declares in `Mechanism::HOOKS` (`tests/hooks.rs`). The engine calls only declared hooks, so
//! an implemented hook left undeclared would silently never run.
//!
//! The defaults record into a thread-local bit set. The engine calls a default only for a hook
//! declared but not implemented, which the same test refuses: in a correct build this costs
//! nothing.

use std::cell::Cell;

/// The hooks `Mechanism::HOOKS` can declare (as its fields, in their order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hook {
    SwitchArrival,
    QueueHead,
    Request,
    InputFull,
    Transmit,
    Message,
    InjectGate,
    Injected,
    Deliver,
    Control,
    Timer,
}

impl Hook {
    pub const ALL: [Hook; 11] = [
        Hook::SwitchArrival,
        Hook::QueueHead,
        Hook::Request,
        Hook::InputFull,
        Hook::Transmit,
        Hook::Message,
        Hook::InjectGate,
        Hook::Injected,
        Hook::Deliver,
        Hook::Control,
        Hook::Timer,
    ];

    /// Whether `hooks` declares this one.
    pub fn declared_in(self, hooks: &super::Hooks) -> bool {
        match self {
            Hook::SwitchArrival => hooks.switch_arrival,
            Hook::QueueHead => hooks.queue_head,
            Hook::Request => hooks.request,
            Hook::InputFull => hooks.input_full,
            Hook::Transmit => hooks.transmit,
            Hook::Message => hooks.message,
            Hook::InjectGate => hooks.inject_gate,
            Hook::Injected => hooks.injected,
            Hook::Deliver => hooks.deliver,
            Hook::Control => hooks.control,
            Hook::Timer => hooks.timer,
        }
    }
}

thread_local! {
    static RAN: Cell<u16> = const { Cell::new(0) };
}

pub(super) fn default_ran(hook: Hook) {
    RAN.with(|r| r.set(r.get() | 1 << hook as u16));
}

/// Whether the default of `hook` ran since the last call (which clears the record).
pub fn take_default_ran(hook: Hook) -> bool {
    RAN.with(|r| {
        let ran = r.get() & (1 << hook as u16) != 0;
        r.set(0);
        ran
    })
}

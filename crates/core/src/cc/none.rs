//! The baseline: no congestion control, one data VC with virtual output queues (SRP paper §4:
//! "In the baseline network, a single VC is used to transmit all network traffic").

use super::{Hooks, Mechanism, VcClass, VcSpec};

pub struct NoCc {
    pub voq: bool,
}

impl Mechanism for NoCc {
    const HOOKS: Hooks = Hooks::NONE;

    fn name(&self) -> &'static str {
        "none"
    }

    fn vcs(&self) -> Vec<VcSpec> {
        vec![VcSpec { class: VcClass::Data, voq: self.voq }]
    }
}

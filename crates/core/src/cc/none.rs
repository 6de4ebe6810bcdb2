//! The baseline: no congestion control, one data VC (SRP paper §4: "In the baseline network, a
//! single VC is used to transmit all network traffic").

use super::{Hooks, Mechanism, VcRole};

pub struct NoCc;

impl Mechanism for NoCc {
    const HOOKS: Hooks = Hooks::NONE;

    fn name(&self) -> &'static str {
        "none"
    }

    fn vcs(&self) -> Vec<VcRole> {
        vec![VcRole::DATA]
    }
}

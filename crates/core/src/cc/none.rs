//! The baseline: no congestion control, one data VC (SRP paper §4: "In the baseline network, a
//! single VC is used to transmit all network traffic").

use super::registry::NoSettings;
use super::{Hooks, Mechanism, Registered, VcRole};
use crate::config::Config;

pub struct NoCc;

impl Registered for NoCc {
    const ABOUT: &'static str = "No congestion control: the baseline network of every paper, one data VC.";
    const DOC: &'static str = "SRP paper §4: \"In the baseline network, a single VC is used to transmit all network traffic.\" No settings.\n";
    type Settings = NoSettings;

    fn new(_: &Config, _: NoSettings) -> NoCc {
        NoCc
    }
}

impl Mechanism for NoCc {
    type Header = ();
    const HOOKS: Hooks = Hooks::NONE;
    const PARTITIONED: bool = true;

    fn name(&self) -> &'static str {
        "none"
    }

    fn vcs(&self) -> Vec<VcRole> {
        vec![VcRole::DATA]
    }
}

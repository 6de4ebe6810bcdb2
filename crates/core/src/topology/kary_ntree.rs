//! k-ary n-tree (Petrini & Vanneschi 1997), the fat tree of the SRP paper (k = 16, n = 2, §4),
//! of its 4096-node network (k = 16, n = 3, §6.2) and of the thesis' Paper II (k = 4, n = 3).
//!
//! Switch <w, l> (w a word of n-1 base-k digits, level l) connects up to <w', l+1> for every w'
//! equal to w except in digit l; host p attaches to leaf w with w_i = p_(i+1). Hence the level-l
//! subtree of <w, l> holds the hosts whose digits p_(l+1).. equal w_l..; its down port towards
//! host d is digit d_l; and going up from level l through port j sets digit l of the parent to j.

use super::{Builder, Topology};
use crate::config::LinkConfig;
use crate::ids::{NodeId, PortId, SwitchId};
use crate::time::{ps_from_ns, Rate};

pub fn build(k: u32, n: u32, link: &LinkConfig) -> Topology {
    let rate = Rate::from_gbps(link.bandwidth_gbps);
    let host_rate = Rate::from_gbps(link.host_gbps());
    let lat = ps_from_ns(link.latency_ns);
    let host_lat = ps_from_ns(link.host_latency());
    let per_level = k.pow(n - 1);
    let hosts = k.pow(n);
    let mut b = Builder::default();
    for h in 0..hosts {
        b.add_host(format!("h{h}"));
    }
    for l in 0..n {
        for w in 0..per_level {
            b.add_switch(format!("s{l}.{w}"), l);
        }
    }
    let sw = |l: u32, w: u32| l * per_level + w;
    // Down ports first, numbered 0..k by the digit they select, so that port = digit.
    for h in 0..hosts {
        b.link_host(NodeId(h), SwitchId(sw(0, h / k)), host_rate, host_lat, None, false);
    }
    for l in 0..n - 1 {
        let stride = k.pow(l);
        for child in 0..per_level {
            // Parent j of <child, l> replaces digit l of child by j. Ports are numbered in
            // creation order, so the child's up port j is created here for j = 0..k in order.
            let digit = (child / stride) % k;
            for j in 0..k {
                let parent = child - digit * stride + j * stride;
                b.link_switches(SwitchId(sw(l, child)), SwitchId(sw(l + 1, parent)), true, rate, lat, None);
            }
        }
    }
    // The parent's down ports were appended in the order children were visited, not by digit:
    // renumber them so that down port d of a level-(l+1) switch leads to the child whose digit l
    // is d.
    let mut topo = b.finish(Some(vec![k; (n - 1) as usize]));
    for s in &mut topo.switches {
        if s.level == 0 {
            continue;
        }
        let l = s.level - 1;
        let stride = k.pow(l);
        let (mut downs, ups): (Vec<_>, Vec<_>) = s.ports.drain(..).partition(|p| !p.up);
        downs.sort_by_key(|p| {
            let child = match topo.channels[p.out.idx()].to {
                crate::ids::Endpoint::Switch(c, _) => c.0 % per_level,
                crate::ids::Endpoint::Host(_) => unreachable!("only leaves connect hosts"),
            };
            (child / stride) % k
        });
        s.ports = downs.into_iter().chain(ups).collect();
    }
    renumber_endpoints(&mut topo);
    topo
}

/// After ports were reordered, make every channel's endpoint port numbers match.
pub(super) fn renumber_endpoints(topo: &mut Topology) {
    use crate::ids::Endpoint;
    for (s, node) in topo.switches.iter().enumerate() {
        for (p, port) in node.ports.iter().enumerate() {
            topo.channels[port.out.idx()].from = Endpoint::Switch(SwitchId::new(s), PortId::new(p));
            topo.channels[port.inp.idx()].to = Endpoint::Switch(SwitchId::new(s), PortId::new(p));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::Endpoint;

    #[test]
    fn srp_reference_tree_has_the_papers_shape() {
        // SRP paper §4: 256 hosts, 16 leaves with 16 down + 16 up ports, 16 spines with 16 ports.
        let t = build(16, 2, &LinkConfig::default());
        assert_eq!(t.hosts(), 256);
        assert_eq!(t.switches.len(), 32);
        for s in &t.switches {
            let ups = s.ports.iter().filter(|p| p.up).count();
            if s.level == 0 {
                assert_eq!((s.ports.len(), ups), (32, 16));
            } else {
                assert_eq!((s.ports.len(), ups), (16, 0));
            }
        }
    }

    #[test]
    fn down_port_numbers_are_digits() {
        // 4-ary 3-tree: at level l the down port towards host d is digit d_l.
        let k = 4;
        let t = build(k, 3, &LinkConfig::default());
        for (s, node) in t.switches.iter().enumerate() {
            for (p, port) in node.ports.iter().enumerate().filter(|(_, p)| !p.up) {
                assert_eq!(t.channels[port.out.idx()].from, Endpoint::Switch(SwitchId::new(s), PortId::new(p)));
                if let Endpoint::Switch(child, _) = t.channels[port.out.idx()].to {
                    let w = child.0 % 16;
                    let l = node.level - 1;
                    assert_eq!((w / k.pow(l)) % k, p as u32);
                }
            }
        }
    }
}

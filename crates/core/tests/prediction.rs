//! A routing's prediction of a packet's port (`Route::predict`, which `sim::prefetch` asks for
//! that output with before the packet arrives) is the port `route` then gives, drawing from
//! the same stream.

mod common;
use common::*;
use lossless_core::ids::{NodeId, SwitchId};
use lossless_core::rng::{stream, Family};
use lossless_core::routing::{Flow, Leg, Route, Routing};
use lossless_core::topology::Topology;

#[test]
fn tree_routings_predict_the_port_they_give_at_every_switch_and_stream_position() {
    for algorithm in ["nca", "dmodk", "ecmp"] {
        let cfg = config(&format!(
            "[topology]\nkind = \"kary_ntree\"\nk = 4\nn = 3\n[routing]\nalgorithm = \"{algorithm}\"\n[[traffic]]\npattern = \"uniform\"\nload = 0.1\n"
        ));
        let topo = Topology::build(&cfg.topology).unwrap();
        let routing = Routing::build(&cfg.routing, &topo).unwrap();
        let hosts = topo.hosts() as u32;
        for sw in (0..topo.switches.len() as u32).map(SwitchId) {
            let mut rng = stream(1, Family::Switch, sw.0 as u64);
            // Three rounds of every destination: more draws than one block of the stream holds.
            for (k, dst) in (0..3 * hosts).map(|k| (k, NodeId(k % hosts))) {
                let flow = Flow { src: NodeId((k * 7) % hosts), id: k % 3 };
                let predicted = routing.predict(sw, dst, flow, &rng);
                let mut leg = Leg::START;
                let port = routing.route(sw, dst, flow, &mut leg, &lossless_core::routing::Idle, &mut rng);
                assert_eq!(predicted, Some(port), "{algorithm} at {sw:?} to {dst:?}");
            }
        }
    }
}

#[test]
fn adaptive_routing_predicts_nothing() {
    // UGAL reads its outputs' queues, which may change before the packet arrives.
    let cfg = config("[topology]\nkind = \"flattened_butterfly\"\nrouters_per_dim = 4\ndims = 2\nconcentration = 2\n[routing]\nalgorithm = \"ugal\"\n[[traffic]]\npattern = \"uniform\"\nload = 0.1\n");
    let topo = Topology::build(&cfg.topology).unwrap();
    let routing = Routing::build(&cfg.routing, &topo).unwrap();
    let rng = stream(1, Family::Switch, 0);
    assert_eq!(routing.predict(SwitchId(0), NodeId(9), Flow { src: NodeId(0), id: 0 }, &rng), None);
}

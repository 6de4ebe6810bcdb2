//! Open-loop message sources. Each `[[traffic]]` table is a class: a set of sources, a
//! destination pattern, a message-size law, an arrival process and an active interval. Classes
//! that start and stop at given times make step and impulse experiments (SRP paper §5.3, §6.5).

mod arrival;
mod pattern;
mod resolve;
mod sizes;

pub use resolve::resolve;
pub use sizes::Sizes;

use crate::config::{Arrival, Pattern};
use crate::ids::{ClassId, NodeId};
use crate::rng::Stream;
use crate::time::Time;

pub struct Class {
    pub name: String,
    pub pattern: Pattern,
    pub greedy: bool,
    /// Greedy ON-OFF sources: mean ON and OFF times (ps).
    pub on_off: Option<(f64, f64)>,
    pub arrival: Arrival,
    pub size: Sizes,
    /// Bytes of each data packet (`packet_bytes`, at most the network's `nic.data_packet_bytes`).
    pub packet_bytes: u32,
    /// Offered load (fraction of the injection link); 1 for greedy classes.
    pub load: f64,
    /// `rate_limit` as its inverse: a source's packets start at least this many packet times
    /// apart.
    pub pace: Option<f64>,
    pub start: Time,
    pub stop: Time,
    pub sources: Vec<NodeId>,
    pub target: Target,
}

/// Where a class's messages go, resolved from its pattern.
pub enum Target {
    /// `uniform`: any of these (sorted) but the source itself.
    Uniform(Vec<NodeId>),
    /// `hotspot`, `flow`, `burst`: one host.
    Fixed(NodeId),
    /// A moving hot spot: the destination of each `lifetime` from time 0.
    Moving { lifetime: Time, dests: Vec<NodeId> },
    /// Permutation patterns: each host's destination (`NodeId::MAX` where the host sends none).
    Permutation(Vec<NodeId>),
}

impl Target {
    /// The single destination of a hot spot, flow or burst (a moving hot spot's first).
    pub fn fixed(&self) -> Option<NodeId> {
        match self {
            Target::Fixed(d) => Some(*d),
            Target::Moving { dests, .. } => dests.first().copied(),
            Target::Uniform(_) | Target::Permutation(_) => None,
        }
    }
}

pub struct Source {
    pub class: ClassId,
    pub node: NodeId,
    /// Mean time between message starts.
    pub mean_gap: f64,
    /// End of the current ON period of an ON-OFF source (`Time::MAX` for the others).
    pub on_until: Time,
    /// Rate-limited classes: the earliest start of the source's next packet.
    pub paced_until: Time,
    pub rng: Stream,
}

pub struct Traffic {
    pub classes: Vec<Class>,
    pub sources: Vec<Source>,
    /// Bernoulli cycle (simulation.cycle_ns).
    pub cycle: Time,
}

fn exponential(mean: f64, rng: &mut Stream) -> Time {
    arrival::gap(Arrival::Poisson, mean, 1, rng)
}

/// A message drawn by a source.
pub struct Draw {
    pub dst: NodeId,
    pub packets: u32,
}

impl Traffic {
    /// Time of the first message of source `s`, if it sends one before its class stops.
    pub fn first(&mut self, s: usize) -> Option<Time> {
        let c = &self.classes[self.sources[s].class as usize];
        let (start, stop) = (c.start, c.stop);
        // Greedy, burst and periodic sources start at the class's start; random processes
        // draw their first gap so that sources do not start in lockstep.
        let t = if let Some((_, off)) = c.on_off {
            start + exponential(off, &mut self.sources[s].rng)
        } else if c.greedy || c.pattern == Pattern::Burst || c.arrival == Arrival::Periodic {
            start
        } else {
            start + self.gap(s)
        };
        (t < stop).then_some(t)
    }

    /// Time from one message of source `s` to its next (not used by greedy or burst classes).
    pub fn gap(&mut self, s: usize) -> Time {
        let cycle = self.cycle;
        let src = &mut self.sources[s];
        let arrival = self.classes[src.class as usize].arrival;
        arrival::gap(arrival, src.mean_gap, cycle, &mut src.rng)
    }

    /// Whether source `s` draws more messages after one at time `t` (false for burst classes).
    pub fn repeats(&self, s: usize) -> bool {
        let c = &self.classes[self.sources[s].class as usize];
        !c.greedy && c.pattern != Pattern::Burst
    }

    pub fn stop(&self, s: usize) -> Time {
        self.classes[self.sources[s].class as usize].stop
    }

    /// An ON-OFF source's message arrival at `now` opens an ON period: returns the start of
    /// the next one (after an OFF period), if before the class stops. `None` for other sources.
    pub fn open_on_period(&mut self, s: usize, now: Time) -> Option<Time> {
        let c = &self.classes[self.sources[s].class as usize];
        let ((on, off), stop) = (c.on_off?, c.stop);
        let src = &mut self.sources[s];
        src.on_until = now + exponential(on, &mut src.rng);
        let next = src.on_until + exponential(off, &mut src.rng);
        (next < stop).then_some(next)
    }

    /// Whether greedy source `s` still sends at `now` (its class active, its ON period open).
    pub fn sending(&self, s: usize, now: Time) -> bool {
        let src = &self.sources[s];
        let c = &self.classes[src.class as usize];
        c.greedy && now < c.stop && now < src.on_until
    }

    /// Draws the destination and size of source `s`'s message generated at `now`.
    pub fn draw(&mut self, s: usize, now: Time) -> Draw {
        let src = &mut self.sources[s];
        let class = &self.classes[src.class as usize];
        let dst = pattern::destination(class, src.node, now, &mut src.rng);
        let packets = class.size.draw(&mut src.rng);
        Draw { dst, packets }
    }
}

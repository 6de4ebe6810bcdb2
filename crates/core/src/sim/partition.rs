//! How a run split over threads divides the network (`sim::parallel`): each switch, with the
//! hosts attached to it, belongs to one partition, and each channel's two ends tell where the
//! events it carries go. An event that crosses from one partition to another travels as a
//! message (`Msg`), delivered between windows.

use super::Sim;
use crate::cc::Mechanism;
use crate::event::Event;
use crate::ids::{ClassId, NodeId, SwitchId};
use crate::nic::CopyChange;
use crate::packet::Packet;
use crate::switch::queues::isolation::Signal;
pub(crate) use crate::layout::Layout;
use crate::time::Time;
use std::sync::Arc;

impl Layout {
    /// The partition an event is handled in: the end of its channel it acts on. Events that
    /// name no channel stay where they were made (`None`).
    #[inline]
    fn home(&self, ev: &Event) -> Option<u16> {
        match *ev {
            Event::HeadArrive { ch, .. } | Event::Deliver { ch, .. } => Some(self.down[ch.idx()]),
            Event::Credit { ch, .. } | Event::Pause { ch, .. } | Event::Isolation { ch, .. } => Some(self.up[ch.idx()]),
            _ => None,
        }
    }
}

/// What one partition sends another between windows.
pub(crate) enum Msg<H> {
    /// An event, at `at`.
    Event { at: Time, ev: Event },
    /// A packet's head arriving (`Event::HeadArrive`): the packet moves with it.
    Packet { at: Time, ev: Event, pkt: Packet<H> },
    /// A line allocation reaching its sender (`Event::Isolation`), with its destinations.
    Dests { at: Time, ev: Event, dests: Vec<NodeId> },
    /// A change to the entry of a packet that may arrive twice (`nic::Copies`), for its
    /// destination's partition.
    Copy { change: CopyChange, uid: u64 },
    /// A message created in the measurement window whose completion its destination's
    /// partition records (`stats::Flows`).
    Flow { src: NodeId, dst: NodeId, class: ClassId, created: Time, packets: u32 },
}

/// A `Sim`'s place in a split run.
pub(crate) struct Part<H> {
    pub me: u16,
    pub layout: Arc<Layout>,
    /// Messages for each partition, in the order they were made.
    pub outbox: Vec<Vec<Msg<H>>>,
    /// Since the outboxes were last emptied: the earliest event sent, and the packets sent
    /// (in no partition's slab until received).
    pub sent_first: Time,
    pub sent_packets: u64,
}

impl<H> Part<H> {
    pub fn new(me: u16, layout: Arc<Layout>) -> Part<H> {
        let outbox = (0..layout.parts).map(|_| Vec::new()).collect();
        Part { me, layout, outbox, sent_first: Time::MAX, sent_packets: 0 }
    }

    /// The partition `ev` must go to, if not this one.
    #[inline]
    pub fn remote(&self, ev: &Event) -> Option<u16> {
        self.layout.home(ev).filter(|&q| q != self.me)
    }

    /// Where `nic::Copies` sends changes for packets delivered in other partitions.
    pub fn copies_away(&self) -> crate::nic::Away {
        crate::nic::Away { me: self.me, layout: self.layout.clone(), out: Vec::new() }
    }

    pub fn owns_switch(&self, s: SwitchId) -> bool {
        self.layout.of_switch[s.idx()] == self.me
    }

    pub fn owns_host(&self, h: NodeId) -> bool {
        self.layout.of_host[h.idx()] == self.me
    }
}

impl<M: Mechanism> Sim<M> {
    /// Schedules `ev`, an event a channel carries, at `at`: here, or, in a split run, in the
    /// partition at the end of the channel it acts on, found in the layout's channel tables.
    #[inline]
    pub(super) fn post(&mut self, at: Time, ev: Event) {
        match self.part.as_ref().and_then(|p| p.remote(&ev)) {
            None => self.push_in_block(at, ev),
            Some(q) => self.send_away(q, at, ev),
        }
    }

    /// `post` for a caller that holds the channel's link, whose `home` (`switch::OutLink`,
    /// `switch::InLink`) names where the end it acts on is served: its block in a run served
    /// in blocks (whose blocks nest in the partitions), else its partition. The per-channel
    /// tables `post` reads are a miss per event on large networks (perf at 65,536 hosts: 3.5%
    /// of the samples on `Blocks::owner`'s one load).
    #[inline]
    pub(super) fn post_to(&mut self, at: Time, ev: Event, home: u16) {
        if let Some(p) = &self.part {
            let q = home / self.blocks_per_part();
            if q != p.me {
                return self.send_away(q, at, ev);
            }
        }
        self.push_to_block(at, ev, home);
    }

    /// Sends `ev` to partition `q`, with the packet or destinations it names: they leave this
    /// partition's slab and tables.
    #[cold]
    fn send_away(&mut self, q: u16, at: Time, ev: Event) {
        let msg = match ev {
            Event::HeadArrive { pkt, .. } => {
                let moving = *self.slab.get(pkt);
                self.slab.release(pkt);
                Msg::Packet { at, ev, pkt: moving }
            }
            Event::Isolation { signal: Signal::Allocate, dests, .. } => Msg::Dests { at, ev, dests: self.take_dests(dests) },
            _ => Msg::Event { at, ev },
        };
        let part = self.part.as_mut().expect("only a split run sends away");
        part.sent_first = part.sent_first.min(at);
        part.sent_packets += matches!(msg, Msg::Packet { .. }) as u64;
        part.outbox[q as usize].push(msg);
    }

    /// In a split run, a message just created here whose destination another partition holds:
    /// its completion is recorded there.
    pub(super) fn send_flow(&mut self, src: NodeId, dst: NodeId, class: ClassId, created: Time) {
        let Some(part) = &mut self.part else { return };
        let q = part.layout.of_host[dst.idx()];
        if q == part.me {
            return;
        }
        if let Some(packets) = self.stats.flows.withdraw(src, class, created) {
            part.outbox[q as usize].push(Msg::Flow { src, dst, class, created, packets });
        }
    }

    /// Puts the changes to other partitions' packet copies made this window in their outboxes.
    pub(crate) fn send_copy_changes(&mut self) {
        let (Some(part), Some(away)) = (&mut self.part, &mut self.copies.away) else { return };
        for (q, change, uid) in away.out.drain(..) {
            part.outbox[q as usize].push(Msg::Copy { change, uid });
        }
    }

    /// Takes what another partition sent this one, in the order it was sent.
    pub(crate) fn receive(&mut self, msgs: impl IntoIterator<Item = Msg<M::Header>>) {
        for m in msgs {
            match m {
                Msg::Event { at, ev } => self.push_in_block(at, ev),
                Msg::Packet { at, ev: Event::HeadArrive { ch, .. }, pkt } => {
                    // In blocks, a packet for another block than the one being served moves on
                    // into its inbox (`push_in_block`).
                    let pkt = self.slab.alloc(pkt);
                    self.push_in_block(at, Event::HeadArrive { ch, pkt });
                }
                Msg::Dests { at, ev: Event::Isolation { ch, vc, line, signal, .. }, dests } => {
                    let dests = self.store_dests(dests);
                    self.push_in_block(at, Event::Isolation { ch, vc, line, signal, dests });
                }
                Msg::Flow { src, dst, class, created, packets } => self.stats.flows.created(src, dst, class, created, packets),
                Msg::Copy { change, uid } => self.copies.apply(change, uid),
                Msg::Packet { .. } | Msg::Dests { .. } => unreachable!("packets travel with head arrivals, destinations with line allocations"),
            }
        }
    }
}

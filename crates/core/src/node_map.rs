//! A map from host to value that stays proportional to what it holds: hashed while it names
//! few of the network's hosts, an array indexed by host once it names many. A backlogged NIC
//! keeps a send queue for most destinations, and IB CC a flow for most of a source's: there a
//! hashed lookup misses the cache twice (the table's control bytes, then its bucket) where the
//! array misses once. It offers no iteration, and a change
//! of representation moves each entry to its own key, so no table's order can leak into results.

use crate::ids::NodeId;
use rustc_hash::FxHashMap;

/// It turns to an array at `hosts / DENSE_AT` entries, so the array takes at most `DENSE_AT`
/// slots per entry...
const DENSE_AT: usize = 16;
/// ...and back to a table below `hosts / SPARSE_AT`, well under, so that a map near the line
/// does not switch back and forth.
const SPARSE_AT: usize = 64;

pub struct NodeMap<V> {
    hosts: usize,
    len: usize,
    repr: Repr<V>,
}

enum Repr<V> {
    Sparse(FxHashMap<NodeId, V>),
    Dense(Vec<Option<V>>),
}

impl<V: Copy> NodeMap<V> {
    /// An empty map over hosts `0..hosts`.
    pub fn new(hosts: usize) -> NodeMap<V> {
        NodeMap { hosts, len: 0, repr: Repr::Sparse(FxHashMap::default()) }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn get(&self, node: NodeId) -> Option<V> {
        match &self.repr {
            Repr::Sparse(m) => m.get(&node).copied(),
            Repr::Dense(v) => v[node.idx()],
        }
    }

    pub fn insert(&mut self, node: NodeId, value: V) {
        let new = match &mut self.repr {
            Repr::Sparse(m) => m.insert(node, value).is_none(),
            Repr::Dense(v) => v[node.idx()].replace(value).is_none(),
        };
        self.len += new as usize;
        if let Repr::Sparse(m) = &self.repr {
            if self.len * DENSE_AT >= self.hosts {
                let mut dense = vec![None; self.hosts];
                for (&n, &x) in m {
                    dense[n.idx()] = Some(x);
                }
                self.repr = Repr::Dense(dense);
            }
        }
    }

    pub fn remove(&mut self, node: NodeId) {
        let gone = match &mut self.repr {
            Repr::Sparse(m) => m.remove(&node).is_some(),
            Repr::Dense(v) => v[node.idx()].take().is_some(),
        };
        self.len -= gone as usize;
        if let Repr::Dense(v) = &self.repr {
            if self.len * SPARSE_AT < self.hosts {
                let sparse = v.iter().enumerate().filter_map(|(n, x)| x.map(|x| (NodeId::new(n), x))).collect();
                self.repr = Repr::Sparse(sparse);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::NodeMap;
    use crate::ids::NodeId;
    use std::collections::BTreeMap;

    #[test]
    fn holds_what_a_plain_map_holds_through_both_representations() {
        // 256 hosts: an array from 16 entries, a table again below 4. Fill past the first,
        // empty below the second, refill: every step checked against a `BTreeMap`.
        let hosts = 256;
        let (mut m, mut plain) = (NodeMap::new(hosts), BTreeMap::new());
        let order: Vec<usize> = (0..hosts).map(|k| k * 97 % hosts).collect();
        let check = |m: &NodeMap<u32>, plain: &BTreeMap<usize, u32>| {
            assert_eq!(m.len(), plain.len());
            for n in 0..hosts {
                assert_eq!(m.get(NodeId::new(n)), plain.get(&n).copied(), "host {n}");
            }
        };
        for (k, &n) in order.iter().take(40).enumerate() {
            m.insert(NodeId::new(n), k as u32);
            plain.insert(n, k as u32);
            check(&m, &plain);
        }
        assert!(matches!(m.repr, super::Repr::Dense(_)));
        // Replacing a value does not count as an entry.
        m.insert(NodeId::new(order[0]), 999);
        plain.insert(order[0], 999);
        check(&m, &plain);
        for &n in order.iter().take(38) {
            m.remove(NodeId::new(n));
            plain.remove(&n);
            check(&m, &plain);
        }
        assert!(matches!(m.repr, super::Repr::Sparse(_)));
        m.remove(NodeId::new(order[100]));
        check(&m, &plain);
        for (k, &n) in order.iter().enumerate().skip(50).take(30) {
            m.insert(NodeId::new(n), k as u32);
            plain.insert(n, k as u32);
            check(&m, &plain);
        }
        assert!(matches!(m.repr, super::Repr::Dense(_)));
    }
}

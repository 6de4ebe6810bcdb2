//! The choices of every choice-valued key, each with the first sentence of its doc comment in
//! the schema (or, for plug-ins, of their registry entry): what `lossless list` prints, so it
//! cannot drift from what the config accepts.

use crate::config::*;
use strum::{EnumMessage, IntoEnumIterator};

/// One key and the values it accepts, with a line each.
pub struct Choices {
    pub key: &'static str,
    pub values: Vec<(&'static str, String)>,
}

fn choices<E: IntoEnumIterator + EnumMessage + Into<&'static str>>(key: &'static str) -> Choices {
    let values = E::iter().map(|e| (e.get_documentation().map(first_sentence).unwrap_or_default(), e)).map(|(doc, e)| (e.into(), doc)).collect();
    Choices { key, values }
}

/// Up to the first full stop that ends a sentence (not "et al." or "ch. 3"), on one line.
fn first_sentence(doc: &str) -> String {
    let text = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    let end = text.match_indices(". ").map(|(i, _)| i).find(|&i| !text[..i].ends_with(" al") && !text[..i].ends_with(" ch"));
    match end {
        Some(i) => text[..=i].to_string(),
        None => text,
    }
}

pub fn catalog() -> Vec<Choices> {
    vec![
        choices::<TopologyConfig>("topology.kind"),
        Choices {
            key: "routing.algorithm",
            values: std::iter::once((
                crate::routing::AUTO,
                format!("{}.", crate::routing::AUTO_RULE),
            ))
            .chain(crate::routing::entries().into_iter().map(|e| (e.name, first_sentence(e.about))))
            .collect(),
        },
        Choices { key: "switch.input_queues", values: crate::switch::queues::entries().into_iter().map(|e| (e.name, first_sentence(e.about))).collect() },
        choices::<Arbitration>("switch.arbitration"),
        choices::<LinkOrder>("switch.link_order"),
        choices::<NicArbitration>("nic.arbitration"),
        choices::<FlowControlConfig>("flow_control.kind"),
        choices::<DropPoint>("flow_control.drop"),
        Choices { key: "cc.mechanism", values: crate::cc::registry::entries().into_iter().map(|e| (e.name, first_sentence(e.about))).collect() },
        choices::<Pattern>("traffic.pattern"),
        choices::<Arrival>("traffic.arrival"),
        choices::<MessageSize>("traffic.message.kind"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_value_is_accepted_by_its_key_and_described() {
        let base = "[topology]\nkind = \"kary_ntree\"\nk = 2\nn = 2\n[[traffic]]\npattern = \"uniform\"\nload = 0.1\n";
        for c in catalog() {
            for (value, doc) in &c.values {
                assert!(!doc.is_empty(), "{} = {value} has no doc comment", c.key);
                let key = c.key.split(", ").next().unwrap().replace("traffic.", "traffic.0.");
                let set = if key == "topology.kind" || key == "traffic.0.message.kind" {
                    format!("{}={{kind=\"{value}\"}}", key.trim_end_matches(".kind"))
                } else {
                    format!("{key}=\"{value}\"")
                };
                let mut table: toml::Table = base.parse().unwrap();
                crate::config::apply_override(&mut table, &set, None).unwrap();
                // Refusals for missing fields of a variant are fine; an unknown value is not.
                if let Err(e) = Config::from_table(table, &[]).and_then(|c| crate::check(&c)) {
                    assert!(!e.message.contains("unknown variant") && !e.message.contains("unknown mechanism"), "{set}: {e}");
                }
            }
        }
    }

    #[test]
    fn first_sentences_skip_abbreviations() {
        assert_eq!(first_sentence("Santos et al. footnote 6. More."), "Santos et al. footnote 6.");
        assert_eq!(first_sentence("One line\n    and its rest. Second."), "One line and its rest.");
    }
}

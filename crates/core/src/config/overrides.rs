//! `--set dotted.key=value` and `--unset dotted.key` overrides, applied to the TOML table before
//! it is typed, so that they are checked exactly like the file's own keys. Array elements are
//! addressed by index: `traffic.0.load=0.5`, or as error messages name them,
//! `traffic[0].load=0.5`. An override string `~dotted.key` removes the key (Hydra's spelling,
//! which `--unset` writes), so that one list of strings carries both kinds.
//!
//! A key set inside a table the file leaves at its default (`traffic.0.message.packets=8` where
//! the file has no `message`) lands in that table as resolved, defaults included: the override
//! changes one field, not the whole table.

use crate::error::{ConfigError, ConfigResult};

/// Applies one override to `table`. `defaults` is the file's config as typed, defaults filled
/// in (none where the file alone does not type): tables the path crosses but the file lacks are
/// taken from it.
pub fn apply_override(table: &mut toml::Table, assignment: &str, defaults: Option<&toml::Table>) -> ConfigResult<()> {
    let (path, raw) = match assignment.strip_prefix('~') {
        Some(path) => (path, None),
        None => {
            let (path, raw) = assignment
                .split_once('=')
                .ok_or_else(|| ConfigError::new("--set", format!("`{assignment}` is not of the form dotted.key=value (to remove a key, use --unset dotted.key)")))?;
            (path, Some(raw))
        }
    };
    let parts: Vec<&str> = path.trim().split('.').flat_map(indexed).collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(ConfigError::new("--set", format!("`{assignment}` has an empty key part")));
    }
    // Traverse `Value`s so that tables and arrays are handled alike; the table is moved in and
    // back out.
    let mut root = toml::Value::Table(std::mem::take(table));
    let defaults = defaults.map(|d| toml::Value::Table(d.clone()));
    let result = set_path(&mut root, &parts, raw.map(|r| parse_value(r.trim())), defaults.as_ref());
    if let toml::Value::Table(t) = root {
        *table = t;
    }
    result
}

/// A dotted part as error messages write a list's element, `traffic[0]`, as the two parts
/// `traffic` and `0`.
fn indexed(part: &str) -> impl Iterator<Item = &str> {
    let mut pieces = part.split('[');
    let name = pieces.next().into_iter();
    name.chain(pieces.map(|index| index.strip_suffix(']').unwrap_or(index)))
}

/// Sets (or with no `value`, removes) the key at `parts`, creating the tables it crosses from
/// `defaults` where it has them.
fn set_path(root: &mut toml::Value, parts: &[&str], value: Option<toml::Value>, defaults: Option<&toml::Value>) -> ConfigResult<()> {
    let mut cur = root;
    let mut default = defaults;
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let here = parts[..=i].join(".");
        default = default.and_then(|d| match d {
            toml::Value::Array(a) => part.parse::<usize>().ok().and_then(|i| a.get(i)),
            d => d.get(*part),
        });
        cur = match cur {
            toml::Value::Table(t) => {
                if last {
                    match value {
                        Some(v) => t.insert(part.to_string(), v),
                        None => t.remove(*part),
                    };
                    return Ok(());
                }
                // A `kind` set in a table the file lacks picks a variant whose keys are its own:
                // the default variant's would not fit it.
                let picks_kind = parts.get(i + 1) == Some(&"kind") && i + 2 == parts.len();
                let missing = || {
                    default.filter(|d| !picks_kind && (d.is_table() || d.is_array())).cloned().unwrap_or_else(|| toml::Value::Table(toml::Table::new()))
                };
                t.entry(part.to_string()).or_insert_with(missing)
            }
            toml::Value::Array(a) => {
                let len = a.len();
                let idx: usize = part.parse().map_err(|_| ConfigError::new(&here, "is a list: address its elements by index, e.g. traffic.0.load"))?;
                let slot = a.get_mut(idx).ok_or_else(|| ConfigError::new(&here, format!("index {idx} is out of range: the list has {len} elements")))?;
                if last {
                    return match value {
                        Some(v) => {
                            *slot = v;
                            Ok(())
                        }
                        None => Err(ConfigError::new(&here, "is a list's element: remove the whole list, or set it to the list you want")),
                    };
                }
                slot
            }
            _ => return Err(ConfigError::new(&here, "is a value, not a table: it has no sub-keys")),
        };
    }
    Ok(())
}

/// A value as TOML would read it (`0.5`, `true`, `"x"`, `[1, 2]`), else as a bare string.
fn parse_value(raw: &str) -> toml::Value {
    match format!("v = {raw}").parse::<toml::Table>() {
        Ok(mut t) => t.remove("v").unwrap_or(toml::Value::String(raw.to_string())),
        Err(_) => toml::Value::String(raw.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> toml::Table {
        text.parse().unwrap()
    }

    #[test]
    fn sets_nested_and_indexed_keys() {
        let mut t = table("[switch]\nspeedup = 2.0\n[[traffic]]\nload = 0.1\n");
        apply_override(&mut t, "switch.speedup=1.5", None).unwrap();
        apply_override(&mut t, "traffic.0.load=0.7", None).unwrap();
        apply_override(&mut t, "cc.mechanism=none", None).unwrap();
        assert_eq!(t["switch"]["speedup"].as_float(), Some(1.5));
        assert_eq!(t["traffic"][0]["load"].as_float(), Some(0.7));
        apply_override(&mut t, "traffic[0].load=0.2", None).unwrap();
        assert_eq!(t["traffic"][0]["load"].as_float(), Some(0.2));
        assert_eq!(t["cc"]["mechanism"].as_str(), Some("none"));
    }

    #[test]
    fn a_key_in_a_defaulted_table_keeps_its_siblings() {
        let mut t = table("[[traffic]]\nload = 0.1\n");
        let defaults = table("[[traffic]]\nload = 0.1\n[traffic.message]\nkind = \"fixed\"\npackets = 4\nunit = 1\n");
        apply_override(&mut t, "traffic.0.message.packets=8", Some(&defaults)).unwrap();
        assert_eq!(t["traffic"][0]["message"]["kind"].as_str(), Some("fixed"));
        assert_eq!(t["traffic"][0]["message"]["packets"].as_integer(), Some(8));
        assert_eq!(t["traffic"][0]["message"]["unit"].as_integer(), Some(1));
        // Picking another variant starts from an empty table: the default variant's keys are not its.
        let mut t = table("[[traffic]]\nload = 0.1\n");
        apply_override(&mut t, "traffic.0.message.kind=bimodal", Some(&defaults)).unwrap();
        assert_eq!(t["traffic"][0]["message"].as_table().unwrap().len(), 1);
    }

    #[test]
    fn unset_removes_a_key() {
        let mut t = table("[switch]\ninput_buffer_packets = 16\nspeedup = 2.0\n");
        apply_override(&mut t, "~switch.input_buffer_packets", None).unwrap();
        apply_override(&mut t, "~switch.not_there", None).unwrap();
        assert!(t["switch"].get("input_buffer_packets").is_none());
        assert_eq!(t["switch"]["speedup"].as_float(), Some(2.0));
        let mut t = table("[[traffic]]\nload = 0.1\n");
        assert_eq!(apply_override(&mut t, "~traffic.0", None).unwrap_err().key, "traffic.0");
    }

    #[test]
    fn names_the_bad_part() {
        let mut t = table("[[traffic]]\nload = 0.1\n");
        let e = apply_override(&mut t, "traffic.3.load=1", None).unwrap_err();
        assert_eq!(e.key, "traffic.3");
        let e = apply_override(&mut t, "traffic.x=1", None).unwrap_err();
        assert_eq!(e.key, "traffic.x");
        let e = apply_override(&mut t, "traffic[3].load=1", None).unwrap_err();
        assert_eq!(e.key, "traffic.3");
        assert!(apply_override(&mut t, "[0].load=1", None).is_err(), "a list's element needs the list's name");
        assert!(apply_override(&mut t, "noequals", None).is_err());
    }
}

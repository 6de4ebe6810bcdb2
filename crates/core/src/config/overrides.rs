//! `--set dotted.key=value` overrides, applied to the TOML table before it is typed, so that
//! they are checked exactly like the file's own keys. Array elements are addressed by index:
//! `traffic.0.load=0.5`, or as error messages name them, `traffic[0].load=0.5`.

use crate::error::{ConfigError, ConfigResult};

pub fn apply_override(table: &mut toml::Table, assignment: &str) -> ConfigResult<()> {
    let (path, raw) = assignment.split_once('=').ok_or_else(|| ConfigError::new("--set", format!("`{assignment}` is not of the form dotted.key=value")))?;
    let parts: Vec<&str> = path.trim().split('.').flat_map(indexed).collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(ConfigError::new("--set", format!("`{assignment}` has an empty key part")));
    }
    // Traverse a `Value` so that tables and arrays are handled alike; the table is moved in and
    // back out.
    let mut root = toml::Value::Table(std::mem::take(table));
    let result = set_path(&mut root, &parts, parse_value(raw.trim()));
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

fn set_path(root: &mut toml::Value, parts: &[&str], value: toml::Value) -> ConfigResult<()> {
    let mut cur = root;
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let here = parts[..=i].join(".");
        cur = match cur {
            toml::Value::Table(t) => {
                if last {
                    t.insert(part.to_string(), value);
                    return Ok(());
                }
                t.entry(part.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()))
            }
            toml::Value::Array(a) => {
                let len = a.len();
                let idx: usize = part.parse().map_err(|_| ConfigError::new(&here, "is a list: address its elements by index, e.g. traffic.0.load"))?;
                let slot = a.get_mut(idx).ok_or_else(|| ConfigError::new(&here, format!("index {idx} is out of range: the list has {len} elements")))?;
                if last {
                    *slot = value;
                    return Ok(());
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
        apply_override(&mut t, "switch.speedup=1.5").unwrap();
        apply_override(&mut t, "traffic.0.load=0.7").unwrap();
        apply_override(&mut t, "cc.mechanism=none").unwrap();
        assert_eq!(t["switch"]["speedup"].as_float(), Some(1.5));
        assert_eq!(t["traffic"][0]["load"].as_float(), Some(0.7));
        apply_override(&mut t, "traffic[0].load=0.2").unwrap();
        assert_eq!(t["traffic"][0]["load"].as_float(), Some(0.2));
        assert_eq!(t["cc"]["mechanism"].as_str(), Some("none"));
    }

    #[test]
    fn names_the_bad_part() {
        let mut t = table("[[traffic]]\nload = 0.1\n");
        let e = apply_override(&mut t, "traffic.3.load=1").unwrap_err();
        assert_eq!(e.key, "traffic.3");
        let e = apply_override(&mut t, "traffic.x=1").unwrap_err();
        assert_eq!(e.key, "traffic.x");
        let e = apply_override(&mut t, "traffic[3].load=1").unwrap_err();
        assert_eq!(e.key, "traffic.3");
        assert!(apply_override(&mut t, "[0].load=1").is_err(), "a list's element needs the list's name");
        assert!(apply_override(&mut t, "noequals").is_err());
    }
}

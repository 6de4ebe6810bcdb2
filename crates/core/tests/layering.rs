//! Data flows one way (docs/architecture.md): the config layer knows nothing of the network it
//! configures. A module under `config/` that imports the mechanisms, the switch or the
//! simulation would turn that around (and make every change to them a change to the config).

use std::path::Path;

#[test]
fn config_imports_nothing_downstream() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/config");
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        files += 1;
        for (n, line) in text.lines().enumerate() {
            for downstream in [
                "crate::cc",
                "crate::plugin",
                "crate::switch",
                "crate::sim",
                "crate::nic",
                "crate::topology",
                "crate::routing",
                "crate::stats",
                "crate::traffic",
            ] {
                assert!(!line.contains(downstream), "{}:{}: `{}` imports {downstream}", path.display(), n + 1, line.trim());
            }
        }
    }
    assert!(files >= 5, "read {files} files of {}", dir.display());
}

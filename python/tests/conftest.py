from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def default_example() -> Path:
    return ROOT / "examples" / "fattree256_uniform.toml"


@pytest.fixture
def fig1_example() -> Path:
    return ROOT / "examples" / "srp" / "fig1_baseline.toml"

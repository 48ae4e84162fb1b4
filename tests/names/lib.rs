// lib.rs — the module of every crate shape tests/t-maturin-names.sh builds.
use pyo3::prelude::*;

#[pymodule]
fn names_rs(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("answer", 42)?;
    Ok(())
}

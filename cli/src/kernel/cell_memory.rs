//! The memory limit of the kernel's cells, and what the kernel says about it
//! under a cell whose process aborted. Apart from `serve`, so that the
//! server's hooks (`extension.rs`) use it without importing `serve`,
//! which imports the server.

/// The memory limit of the kernel's cells: `PUZZLEBOOK_CELL_MEMORY` (a size
/// or `off`, which `kernel install --cell-memory` writes into kernel.json),
/// else half of the machine's memory. A value that is not a size is said on
/// the kernel's log and the default is used.
pub fn kernel_cell_memory() -> Option<u64> {
    let default = Some(crate::limits::default_cell_memory());
    match std::env::var(crate::limits::CELL_MEMORY_ENV) {
        Ok(text) => crate::limits::parse_memory(&text).unwrap_or_else(|e| {
            eprintln!(
                "puzzlebook: {}: {e}; using the default",
                crate::limits::CELL_MEMORY_ENV
            );
            default
        }),
        Err(_) => default,
    }
}

/// What the kernel adds when a cell's process aborted, which is what an
/// allocation past the memory limit does: the limit, and how to change it.
pub fn memory_note() -> String {
    match kernel_cell_memory() {
        Some(bytes) => format!(
            "puzzlebook: if the cell ran out of memory (\"memory allocation of … failed\" above), the cells' limit is {}; change it with `puzzlebook kernel install --cell-memory SIZE` (or off).\n",
            crate::limits::memory_text(bytes)
        ),
        None => String::new(),
    }
}

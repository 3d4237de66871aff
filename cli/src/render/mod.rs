//! The renderers over the chapter model: the [`org`] report (with
//! [`markdown`] turned into org), the [`html`] page (with [`highlight`]), and
//! the [`book`] that assembles every file a chapter renders to. Imports only
//! `notebook`.

pub mod book;
pub mod highlight;
pub mod html;
pub mod markdown;
pub mod org;

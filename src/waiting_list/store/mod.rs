//! The waiting list's store code: the shapes of `waiting_list` and `waiting_list_seq` and
//! every query and write of them (as `Store` methods).

pub mod documents;
mod entries;
mod indexes;

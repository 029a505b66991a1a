//! The catalogue's pure rules: what a cinema, a hall and a movie may hold (`checks`), the
//! limits operators' writes are checked against (`limits`, set by the configuration), the
//! regions' tree (`region`), a hall's schedule and a showtime's prices (`schedule`), and
//! which seats a block may name (`seat_blocks`).

pub mod checks;
pub mod limits;
pub mod region;
pub mod schedule;
pub mod seat_blocks;

//! The Relay `Node` interface: every object with a global id.

use async_graphql::{Interface, ID};

use super::{Cinema, Hall, Movie, Region, Review, Showtime};

/// An object with a global id, fetchable with `node(id:)`.
#[derive(Interface)]
#[graphql(field(name = "id", ty = "ID", desc = "The global id."))]
pub enum Node {
    Cinema(Cinema),
    Hall(Hall),
    Movie(Movie),
    Review(Review),
    Showtime(Showtime),
    Region(Region),
}

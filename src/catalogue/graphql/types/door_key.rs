//! `DoorKey`: the key a door's scanners use (an operator record scoped to one cinema's door).

use async_graphql::Object;
use chrono::{DateTime, Utc};

use super::Cinema;
use crate::store::documents::OperatorDoc;

/// A door staff key: it admits tickets at one door of one cinema and does nothing else.
pub struct DoorKey {
    pub record: OperatorDoc,
    /// The key itself: only right after it was made (it is stored as a hash).
    pub api_key: Option<String>,
}

/// A door staff key: it admits tickets at one door of one cinema and does nothing else.
#[Object]
impl DoorKey {
    /// Its code, for revoking it.
    async fn code(&self) -> &str {
        &self.record.code
    }

    /// The door it admits at.
    async fn door(&self) -> &str {
        self.record
            .door
            .as_ref()
            .map_or("", |door| door.name.as_str())
    }

    /// The cinema it admits at.
    async fn cinema(&self) -> Option<Cinema> {
        (self.record.door.as_ref()).map(|door| Cinema::from_id(door.cinema_id))
    }

    /// The operator who made it.
    async fn created_by(&self) -> Option<&str> {
        self.record
            .door
            .as_ref()
            .map(|door| door.created_by.as_str())
    }

    /// When it was made.
    async fn created_at(&self) -> Option<DateTime<Utc>> {
        self.record.door.as_ref().and_then(|door| door.created_at)
    }

    /// The API key, shown this once when the key is made (null afterwards): send it as
    /// `Authorization: Bearer <key>` from the door's scanners. Only its hash is stored.
    async fn api_key(&self) -> Option<&str> {
        self.api_key.as_deref()
    }
}

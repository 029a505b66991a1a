//! `ticket_types`: the ticket types operators defined (the built-in ones are not stored).

use std::collections::HashSet;

use bson::doc;

use super::documents::TicketTypeDoc;
use crate::domain::pricing::TicketType;
use crate::error::ApiError;
use crate::store::command_metrics::Call;
use crate::store::is_duplicate_key;
use crate::store::{names, Store};

/// The most ticket types an operator can define; a list reads them all.
pub const MAX_DEFINED_TICKET_TYPES: usize = 100;

/// What defining a ticket type did.
#[derive(Debug)]
pub enum TicketTypeInsert {
    Inserted,
    /// A type with the code was there: this one (an earlier attempt's, or another's).
    Exists(TicketTypeDoc),
}

impl Store {
    /// Whether `code` was defined (one `find` on `_id`).
    #[tracing::instrument(skip(self))]
    pub async fn ticket_type_exists(&self, code: &TicketType) -> Result<bool, ApiError> {
        Ok(!self
            .defined_ticket_types(std::slice::from_ref(code))
            .await?
            .is_empty())
    }

    /// Which of `codes` were defined (one `find` on `_id`).
    #[tracing::instrument(skip(self))]
    pub async fn defined_ticket_types(
        &self,
        codes: &[TicketType],
    ) -> Result<HashSet<TicketType>, ApiError> {
        let codes: Vec<&str> = codes.iter().map(TicketType::as_str).collect();
        let found = self.existing_codes(names::TICKET_TYPES, &codes).await?;
        Ok(found
            .iter()
            .filter_map(|code| TicketType::parse("_id", code).ok())
            .collect())
    }

    /// Every defined ticket type, by code.
    #[tracing::instrument(skip(self))]
    pub async fn list_ticket_types(&self) -> Result<Vec<TicketTypeDoc>, ApiError> {
        self.find_limited(
            names::TICKET_TYPES,
            doc! {},
            Some(doc! { "_id": 1 }),
            None,
            MAX_DEFINED_TICKET_TYPES,
        )
        .await
    }

    /// How many ticket types were defined.
    #[tracing::instrument(skip(self))]
    pub async fn count_ticket_types(&self) -> Result<u64, ApiError> {
        self.bounded(
            Call::new(names::TICKET_TYPES, "count"),
            self.collection::<TicketTypeDoc>(names::TICKET_TYPES)
                .count_documents(doc! {}),
        )
        .await
    }

    /// Inserts a ticket type unless its code is taken (the `_id` decides).
    #[tracing::instrument(skip(self))]
    pub async fn insert_ticket_type(
        &self,
        ticket_type: &TicketTypeDoc,
    ) -> Result<TicketTypeInsert, ApiError> {
        let collection = self.collection::<TicketTypeDoc>(names::TICKET_TYPES);
        match self
            .bounded_raw(
                Call::new(names::TICKET_TYPES, "insert"),
                collection.insert_one(ticket_type),
            )
            .await?
        {
            Ok(_) => Ok(TicketTypeInsert::Inserted),
            Err(error) if is_duplicate_key(&error) => {
                let found = self
                    .bounded(
                        Call::new(names::TICKET_TYPES, "find"),
                        collection.find_one(doc! { "_id": ticket_type.code.as_str() }),
                    )
                    .await?
                    .ok_or_else(|| ApiError::internal("a duplicate ticket type vanished"))?;
                Ok(TicketTypeInsert::Exists(found))
            }
            Err(error) => Err(error.into()),
        }
    }
}

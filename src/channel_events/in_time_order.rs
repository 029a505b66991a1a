//! The order a relay appends entries of several documents in (a showtime's inventory and the
//! showtime itself): the order they were made, each document's own order kept.

use crate::store::documents::OutboxEntryDoc;
use crate::store::OutboxSource;

/// The entries of `found`'s documents merged by the time they were made, each document's in
/// its order (a document's next entry is taken only after the ones before it): changes to two
/// documents of a showtime (its inventory and itself) reach a channel in the order they were
/// made, even when one round relays both.
pub(super) fn in_time_order(found: &[(OutboxSource, Vec<OutboxEntryDoc>)]) -> Vec<&OutboxEntryDoc> {
    let mut next = vec![0; found.len()];
    let mut merged = Vec::with_capacity(found.iter().map(|(_, entries)| entries.len()).sum());
    while let Some(document) = (0..found.len())
        .filter(|&document| next[document] < found[document].1.len())
        .min_by_key(|&document| {
            let entry = &found[document].1[next[document]];
            (entry.at, entry.id)
        })
    {
        merged.push(&found[document].1[next[document]]);
        next[document] += 1;
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel_events::rules::EventType;
    use crate::domain::ids::{EventId, ShowtimeId};
    use crate::store::{new_entry, new_id, OutboxKind};

    #[test]
    fn entries_of_several_documents_come_in_the_order_they_were_made_each_document_s_in_its_own() {
        let at = |ms: i64| {
            let mut entry = new_entry(EventType::HoldPlaced, Some("maoyan"), Default::default());
            entry.at = chrono::DateTime::from_timestamp_millis(ms).unwrap();
            entry
        };
        let source = |kind| OutboxSource {
            kind,
            showtime: new_id::<ShowtimeId>(),
        };
        // The inventory's entries (one stamped out of order by another gateway's clock, kept
        // in the document's order) and the showtime's price revision between them.
        let inventory = vec![at(1), at(2), at(5), at(4), at(9)];
        let showtime = vec![at(3)];
        let found = vec![
            (source(OutboxKind::Inventory), inventory.clone()),
            (source(OutboxKind::Showtime), showtime.clone()),
        ];
        let order: Vec<EventId> = in_time_order(&found).iter().map(|entry| entry.id).collect();
        let expected = [&inventory[0], &inventory[1], &showtime[0]]
            .into_iter()
            .chain(&inventory[2..])
            .map(|entry| entry.id)
            .collect::<Vec<_>>();
        assert_eq!(order, expected);
    }
}

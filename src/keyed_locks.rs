//! One async lock per key (a showtime, a document), made when first asked for and forgotten
//! once nobody holds or waits for it: the map keeps only weak references, and is pruned when
//! it grows past [`PRUNE_ABOVE`] entries. A waiter that gives up (its future dropped) leaves
//! nothing behind. Used by the holds' per-showtime locks and the store's one writer per
//! document.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, Weak};

/// Entries past which the dead ones are dropped from the map.
pub const PRUNE_ABOVE: usize = 1024;

/// The locks of a process, by key.
#[derive(Debug)]
pub struct KeyedLocks<K> {
    locks: Mutex<HashMap<K, Weak<tokio::sync::Mutex<()>>>>,
}

impl<K> Default for KeyedLocks<K> {
    fn default() -> Self {
        KeyedLocks {
            locks: Mutex::default(),
        }
    }
}

impl<K: Hash + Eq + Clone> KeyedLocks<K> {
    /// `key`'s lock (the same one for as long as anyone holds, waits for or keeps it).
    pub fn get(&self, key: &K) -> Arc<tokio::sync::Mutex<()>> {
        let mut locks = self.locks.lock().expect("keyed locks");
        if locks.len() > PRUNE_ABOVE {
            locks.retain(|_, lock| lock.strong_count() > 0);
        }
        match locks.get(key).and_then(Weak::upgrade) {
            Some(lock) => lock,
            None => {
                let lock = Arc::new(tokio::sync::Mutex::new(()));
                locks.insert(key.clone(), Arc::downgrade(&lock));
                lock
            }
        }
    }

    /// How many hold, wait for or keep `key`'s lock now.
    pub fn users(&self, key: &K) -> usize {
        let locks = self.locks.lock().expect("keyed locks");
        locks.get(key).map_or(0, Weak::strong_count)
    }

    /// How many keys have a lock someone holds, waits for or keeps.
    pub fn live(&self) -> usize {
        let locks = self.locks.lock().expect("keyed locks");
        locks
            .values()
            .filter(|lock| lock.strong_count() > 0)
            .count()
    }

    /// How many entries the map has, dead ones not yet pruned included.
    pub fn entries(&self) -> usize {
        self.locks.lock().expect("keyed locks").len()
    }
}

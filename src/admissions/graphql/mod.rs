//! The admissions' part of the schema: `admitTicket` and `Admission`.

mod door;
pub mod mutation;
pub mod types;

pub use door::calling_door_at;
pub use mutation::AdmissionMutation;
pub use types::Admission;

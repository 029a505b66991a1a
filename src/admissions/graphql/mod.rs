//! The admissions' part of the schema: `admitTicket` and `Admission`.

pub mod mutation;
pub mod types;

pub use mutation::AdmissionMutation;
pub use types::Admission;

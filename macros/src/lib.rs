//! Procedural macros for `embassy-supervisor`. Use them through the runtime crate's
//! re-exports (`embassy_supervisor::supervisor_graph!`).
use proc_macro::TokenStream;

/// Declare a supervised graph.
#[proc_macro]
pub fn supervisor_graph(_input: TokenStream) -> TokenStream {
    "compile_error!(\"supervisor_graph! is being written\");"
        .parse()
        .unwrap()
}

/// Declare a fragment of a graph.
#[proc_macro]
pub fn supervisor_fragment(_input: TokenStream) -> TokenStream {
    "compile_error!(\"supervisor_fragment! is being written\");"
        .parse()
        .unwrap()
}

/// Compose fragments into one graph.
#[proc_macro]
pub fn compose_graph(_input: TokenStream) -> TokenStream {
    "compile_error!(\"compose_graph! is being written\");"
        .parse()
        .unwrap()
}

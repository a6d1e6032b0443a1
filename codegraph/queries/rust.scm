; Rust.
;
; Calls: @call is the call, @name the name called, @qualifier the value it
; is called on (x.m(), self.m()), or @path the whole scoped name
; (a::b::f, Type::new, Self::new), split at its last :: into scope and
; name. @tokens is a parenthesized group inside a macro's arguments, which
; the grammar leaves as tokens: the name before it is called (read in
; lang_rust.go, which also finds what it is called on).
; Imports: @import is a use declaration's tree, flattened in lang_rust.go.

; Calls of a bare name: f(), f::<T>()
(call_expression function: (identifier) @name) @call
(call_expression function: (generic_function function: (identifier) @name)) @call
; Calls of a scoped name: geo::area(), Stack::new(), Self::empty(), Vec::<T>::new()
(call_expression function: (scoped_identifier) @path) @call
(call_expression function: (generic_function function: (scoped_identifier) @path)) @call
; Method calls: x.m(), self.m(), x.collect::<T>()
(call_expression function: (field_expression value: (_) @qualifier field: (field_identifier) @name)) @call
(call_expression function: (generic_function function: (field_expression value: (_) @qualifier field: (field_identifier) @name))) @call
; Calls in a macro's arguments: assert_eq!(add(1, 2), 3), println!("{}", s.len())
(token_tree (identifier) @name . (token_tree) @tokens)

; Imports: use a::b::{c as d, e::*}
(use_declaration argument: (_) @import)

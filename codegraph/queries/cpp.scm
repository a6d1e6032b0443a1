; C++.
;
; Calls: @call is the call, @name the function called, @qualifier the
; value a method is called on (x.m(), p->m(), this->m()), or @path the
; whole scoped name (ns::f, Type::make, a::b::f), split at its last ::
; into scope and name.
; @definition is a function with a body: one without (a prototype, a
; method declared in its class and defined elsewhere, a pure virtual) is
; only declared, and extract keeps it out of the definitions.
; Imports: @import is an #include "path" (not <system> headers).

; Calls of a bare name: f(), f<int>()
(call_expression function: (identifier) @name) @call
(call_expression function: (template_function name: (identifier) @name)) @call
; Calls of a scoped name: ns::f(), Type::make(), std::max<int>()
(call_expression function: (qualified_identifier) @path) @call
; Method calls: x.m(), p->m(), this->m(), x.get<T>()
(call_expression function: (field_expression argument: (_) @qualifier field: (field_identifier) @name)) @call
(call_expression function: (field_expression argument: (_) @qualifier field: (template_method name: (field_identifier) @name))) @call
; Constructions: new Box(1), new geo::Box()
(new_expression type: (type_identifier) @name) @call
(new_expression type: (qualified_identifier) @path) @call

; Functions with a body
(function_definition body: (_)) @definition

; Includes: #include "shapes.hpp"
(preproc_include path: (string_literal) @import)

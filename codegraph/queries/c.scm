; C.
;
; Calls: @call is the call, @name the function called, @qualifier the
; value a function pointer member is called on (ops->start(), s.stop()).
; @definition is a function with a body: a function without one is only
; declared (a prototype), which extract keeps out of the definitions.
; Imports: @import is an #include "path" (not <system> headers).

; Calls of a bare name: f()
(call_expression function: (identifier) @name) @call
; Calls of a member: s.f(), p->f()
(call_expression function: (field_expression argument: (_) @qualifier field: (field_identifier) @name)) @call

; Functions with a body
(function_definition body: (_)) @definition

; Includes: #include "util.h"
(preproc_include path: (string_literal) @import)

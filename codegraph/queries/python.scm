; Calls: a bare name, or an attribute (module.func, self.method).
(call function: (identifier) @name) @call
(call function: (attribute object: (_) @qualifier attribute: (identifier) @name)) @call
; Imports: import m, import m as a, from m import n, from m import n as a.
(import_statement name: (dotted_name) @import)
(import_statement name: (aliased_import name: (dotted_name) @import alias: (identifier) @alias))
(import_from_statement module_name: (_) @from name: (dotted_name) @import)
(import_from_statement module_name: (_) @from name: (aliased_import name: (dotted_name) @import alias: (identifier) @alias))
; from m import *: the module, bound to no name (alias "*").
(import_from_statement module_name: (_) @from (wildcard_import) @import)

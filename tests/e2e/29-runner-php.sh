# 29-runner-php: the PHP runner (plugins/php/runner.php) for real on every
# benchmark in each of the plugin's variants (the -d switches its build()
# gives): interp (opcache off), jit-off, tracing, function.  Protocol v1
# stream, checksum equal to the C version's, gc_status() and heap series per
# iteration; the JIT buffer's use only, and always, with a JIT on.
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/helpers/runner_lib.sh"
need php
php -r 'exit(function_exists("opcache_get_status") ? 0 : 1);' -d opcache.enable_cli=1 ||
	skip "php has no opcache (php8.2-opcache)"
OPC="-d opcache.enable_cli=1"
JIT="$OPC -d opcache.jit_buffer_size=64M -d opcache.jit"
VM_ARGS="-d opcache.enable_cli=0" VARIANT=interp check_vm php --nonzero php.gc.roots
VM_ARGS="$OPC -d opcache.jit=disable" VARIANT=jit-off check_vm php
VM_ARGS="$JIT=tracing" VARIANT=tracing check_vm php --nonzero jit.code_added
VM_ARGS="$JIT=function" VARIANT=function check_vm php --nonzero jit.code_size

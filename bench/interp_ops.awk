# interp_ops.awk: Ir per opcode handler of eval/interp.c, from `callgrind_annotate --auto=yes`
# output. Each annotated line of interp.c is credited to the handler it lies in: the last
# line above it that starts a handler, CASE(X), BINOP(X, ...), BRCMP(X, ...) and the like
# (an upper-case macro whose first argument is an upper-case name; TRAP, SAVE, ... are not
# handlers), or a label (do_call:, meter_slow:, ...); lines before the first handler (the
# helper functions) are "(helpers)". Macro bodies count where they are used, so a
# handler's figure includes its dispatch (NEXT). Prints the handlers by Ir, with their
# shares of interp.c's Ir.
#   awk -f bench/interp_ops.awk build/bench/callgrind/fib.lines.txt
BEGIN { # macros used inside handlers, not to start one
    n1 = split("TRAP SAVE SYNC CHARGE_DYN RELOAD_MEM GO_BLOCK DYN", deny1, " ")
    n2 = split("PUT32 PUT64 PUTF32 PUTF64 U32 S32 U64 S64 F32 F64", deny2, " ")
    for (i = 1; i <= n1; i++)
        not_handler[deny1[i]] = 1
    for (i = 1; i <= n2; i++)
        not_handler[deny2[i]] = 1
}
/^-- Auto-annotated source: / {
    cur = $0
    sub(/^-- Auto-annotated source: /, "", cur)
    in_interp = cur ~ /(^|\/)eval\/interp\.c$/
    region = "(helpers)"
    next
}
!in_interp { next }
/^-- line [0-9]+ -/ { next }
{
    line = $0
    v = 0
    if (match(line, /^ *[0-9][0-9,]*/)) {
        v = substr(line, RSTART, RLENGTH)
        gsub(/[ ,]/, "", v)
    }
    text = line
    sub(/^ *([0-9][0-9,]*|\.) +(\( *[0-9.]+%\) +)?/, "", text)
    if (text ~ /^=>/ || text ~ /^events annotated/) # calls: counted in the callee
        next
    if (match(text, /^[ \t]*[A-Z][A-Z0-9_]*\([A-Z][A-Z0-9_][A-Z0-9_]+[,)]/)) {
        r = substr(text, RSTART, RLENGTH - 1)
        sub(/^[ \t]*/, "", r)
        macro = r
        sub(/\(.*/, "", macro)
        sub(/^[A-Z0-9_]*\(/, "", r)
        if (!(macro in not_handler) && r !~ /^WD_/)
            region = r
    } else if (match(text, /^[a-z_]+:/) && text !~ /^default:/) {
        region = substr(text, RSTART, RLENGTH - 1) ":"
    }
    ir[region] += v
    total += v
}
END {
    if (total == 0)
        exit
    n = 0
    for (r in ir)
        if (ir[r] > 0)
            names[n++] = r
    for (i = 1; i < n; i++) { # insertion sort by Ir, descending
        x = names[i]
        for (j = i - 1; j >= 0 && ir[names[j]] < ir[x]; j--)
            names[j + 1] = names[j]
        names[j + 1] = x
    }
    printf "%-24s %14s %7s\n", "handler (eval/interp.c)", "Ir", "share"
    for (i = 0; i < n; i++)
        printf "%-24s %14.0f %6.1f%%\n", names[i], ir[names[i]], 100 * ir[names[i]] / total
}

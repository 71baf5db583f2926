.class public Lwk/Main;
.super Ljava/lang/Object;
.source "Main.java"

# A workload written in smali (Debian bookworm ships no Java-to-dex
# compiler): loops, both switch forms, try/catch, an exception that
# unwinds a frame, wide values, constructors and a method with more than
# 16 registers whose parameters are used by 4-bit instructions.

.field private acc:J

.method public constructor <init>(J)V
    .registers 5
    .line 1
    invoke-direct {p0}, Ljava/lang/Object;-><init>()V
    const-wide/16 v0, 0x0
    cmp-long v0, p1, v0
    if-eqz v0, :zero
    iput-wide p1, p0, Lwk/Main;->acc:J
    :zero
    return-void
.end method

.method public static classify(I)I
    .locals 1
    .line 10
    packed-switch p0, :pswitch_data
    .line 11
    const/4 v0, -0x1
    return v0
    :pswitch_0
    const/4 v0, 0x1
    return v0
    :pswitch_1
    const/4 v0, 0x2
    return v0
    :pswitch_2
    const/4 v0, 0x3
    return v0
    :pswitch_data
    .packed-switch 0x0
        :pswitch_0
        :pswitch_1
        :pswitch_2
        :pswitch_1
    .end packed-switch
.end method

.method public static sparse(I)I
    .locals 1
    sparse-switch p0, :sswitch_data
    const/4 v0, 0x0
    return v0
    :sswitch_a
    const/16 v0, 0xa
    return v0
    :sswitch_b
    const/16 v0, 0x14
    return v0
    :sswitch_data
    .sparse-switch
        0x7 -> :sswitch_a
        0x64 -> :sswitch_b
        0x3e8 -> :sswitch_a
    .end sparse-switch
.end method

.method public static risky(I)I
    .locals 2
    .line 20
    rem-int/lit8 v0, p0, 0x5
    if-nez v0, :ok
    new-instance v0, Ljava/lang/IllegalStateException;
    const-string v1, "five"
    invoke-direct {v0, v1}, Ljava/lang/IllegalStateException;-><init>(Ljava/lang/String;)V
    throw v0
    :ok
    mul-int/lit8 v0, p0, 0x3
    return v0
.end method

.method public static guarded(I)I
    .locals 2
    :try_start_0
    invoke-static {p0}, Lwk/Main;->risky(I)I
    move-result v0
    :try_end_0
    .catch Ljava/lang/IllegalStateException; {:try_start_0 .. :try_end_0} :catch_0
    return v0
    :catch_0
    move-exception v1
    invoke-virtual {v1}, Ljava/lang/IllegalStateException;->getMessage()Ljava/lang/String;
    move-result-object v1
    invoke-virtual {v1}, Ljava/lang/String;->length()I
    move-result v0
    neg-int v0, v0
    return v0
.end method

.method public static many(IJLjava/lang/String;I)J
    .locals 11
    const/4 v0, 0x0
    const/4 v1, 0x1
    move v2, v0
    :loop
    if-ge v2, p4, :done
    and-int/lit8 v3, v2, 0x1
    if-eqz v3, :even
    int-to-long v4, v2
    add-long/2addr p1, v4
    goto :next
    :even
    invoke-virtual {p3}, Ljava/lang/String;->length()I
    move-result v3
    add-int/2addr p0, v3
    :next
    add-int/2addr v2, v1
    goto :loop
    :done
    int-to-long v6, p0
    add-long/2addr v6, p1
    return-wide v6
.end method

.method public static fib(I)I
    .locals 2
    const/4 v0, 0x2
    if-ge p0, v0, :rec
    return p0
    :rec
    add-int/lit8 v0, p0, -0x1
    invoke-static {v0}, Lwk/Main;->fib(I)I
    move-result v0
    add-int/lit8 v1, p0, -0x2
    invoke-static {v1}, Lwk/Main;->fib(I)I
    move-result v1
    add-int/2addr v0, v1
    return v0
.end method

.method public static main([Ljava/lang/String;)V
    .locals 8
    const/4 v0, 0x0
    const-wide/16 v1, 0x0
    :loop
    const/16 v3, 0x3c
    if-ge v0, v3, :end
    invoke-static {v0}, Lwk/Main;->classify(I)I
    move-result v3
    int-to-long v4, v3
    add-long/2addr v1, v4
    invoke-static {v0}, Lwk/Main;->sparse(I)I
    move-result v3
    int-to-long v4, v3
    add-long/2addr v1, v4
    invoke-static {v0}, Lwk/Main;->guarded(I)I
    move-result v3
    int-to-long v4, v3
    add-long/2addr v1, v4
    const-string v6, "ab"
    invoke-static {v0, v1, v2, v6, v0}, Lwk/Main;->many(IJLjava/lang/String;I)J
    move-result-wide v4
    add-long/2addr v1, v4
    new-instance v7, Lwk/Main;
    invoke-direct {v7, v4, v5}, Lwk/Main;-><init>(J)V
    add-int/lit8 v0, v0, 0x1
    goto :loop
    :end
    const/16 v3, 0xf
    invoke-static {v3}, Lwk/Main;->fib(I)I
    move-result v3
    int-to-long v4, v3
    add-long/2addr v1, v4
    sget-object v3, Ljava/lang/System;->out:Ljava/io/PrintStream;
    invoke-virtual {v3, v1, v2}, Ljava/io/PrintStream;->println(J)V
    return-void
.end method

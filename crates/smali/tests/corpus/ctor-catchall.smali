.class public LZ;
.super Ljava/lang/Object;

.method public constructor <init>(II)V
    .locals 3
    invoke-direct {p0}, Ljava/lang/Object;-><init>()V
    :try_start_0
    invoke-static {}, LZ;->f()V
    :try_end_0
    .catchall {:try_start_0 .. :try_end_0} :catchall_0
    nop
    if-lez p1, :cond_0
    move v0, p1
    :cond_0
    return-void
    :catchall_0
    move-exception v0
    throw v0
.end method

.method public static f()V
    .locals 0
    return-void
.end method

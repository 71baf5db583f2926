.class public abstract Lcorpus/Directives;
.super Ljava/lang/Object;
.source "Directives.kt"
.implements Ljava/lang/Runnable;

.annotation system Ldalvik/annotation/MemberClasses;
    value = {
        Lcorpus/Directives$Inner;
    }
.end annotation

.field public static final NAME:Ljava/lang/String; = "x, y # z"

.field private count:I
    .annotation runtime Ljava/lang/Deprecated;
    .end annotation
.end field

.method public constructor <init>()V
    .registers 1
    invoke-direct {p0}, Ljava/lang/Object;-><init>()V
    return-void
.end method

.method public run()V
    .locals 3
    .annotation system Ldalvik/annotation/Throws;
        value = {
            Ljava/io/IOException;
        }
    .end annotation
    .prologue
    .line 7
    iget v0, p0, Lcorpus/Directives;->count:I
    .local v0, "c":I
    :try_start_0
    const/4 v1, 0x3
    div-int v2, v1, v0
    :try_end_0
    .catchall {:try_start_0 .. :try_end_0} :catchall_0
    .end local v0    # "c":I
    new-array v1, v1, [I
    fill-array-data v1, :array_0
    return-void
    :catchall_0
    move-exception v1
    throw v1
    :array_0
    .array-data 4
        0x1
        0x2
        0x3
    .end array-data
.end method

.method public abstract size(Ljava/util/List;)I
    .param p1    # Ljava/util/List;
        .annotation build Landroidx/annotation/NonNull;
        .end annotation
    .end param
.end method

/* qos_level_flags.h: the bits of a QoS level's flags in the SMDB
 * (SmdbQosLevel::flags), in C so that the OpenSM plugin's C walk
 * (opensm_plugin/osm_extract.c) sets the very values the C++ side
 * (smdb_qos_records.h's kQosLevel*) reads. */
#ifndef IBACM_SSA_COMMON_SMDB_QOS_LEVEL_FLAGS_H
#define IBACM_SSA_COMMON_SMDB_QOS_LEVEL_FLAGS_H

/* Which limits the level sets (OpenSM's *_set), and the policy's default. */
#define SMDB_QOS_LEVEL_SL 0x01u
#define SMDB_QOS_LEVEL_MTU 0x02u
#define SMDB_QOS_LEVEL_RATE 0x04u
#define SMDB_QOS_LEVEL_LIFE 0x08u
#define SMDB_QOS_LEVEL_DEFAULT 0x10u

#endif

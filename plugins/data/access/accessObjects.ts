/** The objects of the permission model, shipped as metadata in ../system-app. */
export const POSITION = 'sys_position';
export const PERMISSION_SET = 'sys_permission_set';
export const USER_POSITION = 'sys_user_position';
export const POSITION_PERMISSION_SET = 'sys_position_permission_set';
export const USER_PERMISSION_SET = 'sys_user_permission_set';
export const RECORD_SHARE = 'sys_record_share';
export const SHARING_RULE = 'sys_sharing_rule';

/** Writable through /data by tenant admins and holders of a delegated-admin (admin_scope) position only. */
export const LINK_OBJECTS: ReadonlySet<string> = new Set([POSITION, PERMISSION_SET, USER_POSITION, POSITION_PERMISSION_SET, USER_PERMISSION_SET]);

/** A write to any of these changes somebody's grants: cached grants of the environment are dropped. */
export const ACCESS_OBJECTS: ReadonlySet<string> = new Set([...LINK_OBJECTS, RECORD_SHARE, SHARING_RULE]);

export type RecipientType = 'user' | 'position' | 'unit_and_subordinates';
